/**
 * The emitted SDP text and the report entry of each construct the lowering knows, from YAML
 * definitions analysed as `thund lower` does. Expected SQL is written from SDP's grammar.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { lowerYaml, PARQUET_SOURCES, yaml } from './lower-helpers.js';

let session: DuckDbSession;
beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
});
afterAll(() => session.close());

const T = (name: string): string => `\`default\`.\`lake\`.\`${name}\``;

describe('batch materialized view', () => {
  it('a complete-mode table becomes CREATE MATERIALIZED VIEW over its query, with comment, identity partition and properties', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'tables:',
        '  lake.totals:',
        '    mode: overwrite',
        '    comment: "per customer\'s"',
        '    partitioned_by: [customer]',
        '    properties: { write.format.default: parquet }',
        '    sql: SELECT customer, count(*) AS n FROM orders GROUP BY customer',
      ),
    );
    expect(lowered.file('transformations/lake.totals.sql')).toContain(
      [
        `CREATE MATERIALIZED VIEW ${T('totals')}`,
        "COMMENT 'per customer\\'s'",
        'PARTITIONED BY (`customer`)',
        "TBLPROPERTIES ('write.format.default' = 'parquet')",
        'AS',
        '  SELECT customer, count(*) AS n FROM orders GROUP BY customer;',
      ].join('\n'),
    );
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain(
      '@dp.temporary_view(name="orders")\ndef source_orders():\n    return spark.read.parquet("/data/orders/*.parquet")',
    );
    expect(lowered.entry('dataset', 'lake.totals')).toMatchObject({ status: 'MAPPED', construct: 'CREATE MATERIALIZED VIEW', file: 'transformations/lake.totals.sql' });
    expect(lowered.entry('flow', 'lake.totals').status).toBe('MAPPED');
    expect(lowered.entry('dataset', 'orders')).toMatchObject({ status: 'MAPPED', file: 'transformations/sources_and_sinks.py' });
  });

  it('an append-mode materialized view stays native: SDP would replace the rows the native engine adds', async () => {
    const lowered = await lowerYaml(session, yaml('pipeline: p', ...PARQUET_SOURCES, 'tables:', '  lake.log:', '    mode: append', '    sql: SELECT * FROM orders'));
    expect(lowered.entry('flow', 'lake.log')).toMatchObject({ status: 'RUN BY NATIVE' });
    expect(lowered.entry('flow', 'lake.log').reason).toMatch(/output mode append into a materialized view/);
    expect(lowered.entry('dataset', 'lake.log').status).toBe('RUN BY NATIVE');
    expect(lowered.allText).not.toContain('`log`');
  });

  it('reads of other tables are qualified with the catalog; strings and comments are left alone', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'tables:',
        '  lake.a: { mode: overwrite, sql: SELECT id FROM orders }',
        "  lake.b: { mode: overwrite, sql: \"SELECT id, 'lake.a' AS label FROM lake.a -- lake.a\" }",
      ),
    );
    expect(lowered.file('transformations/lake.b.sql')).toContain(`SELECT id, 'lake.a' AS label FROM ${T('a')} -- lake.a;`);
  });
});

describe('streaming table with an append flow', () => {
  it('becomes CREATE STREAMING TABLE plus CREATE FLOW … INSERT INTO … BY NAME over a streamed Parquet source', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'tables:',
        '  lake.raw: { kind: streaming_table, schema: { user_id: long, kind: "string not null" } }',
        'flows:',
        '  load: { target: lake.raw, sql: "SELECT user_id, kind FROM STREAM(events)" }',
      ),
    );
    expect(lowered.file('transformations/lake.raw.sql')).toContain(
      [`CREATE STREAMING TABLE ${T('raw')} (\`user_id\` BIGINT, \`kind\` STRING NOT NULL);`, '', 'CREATE FLOW `load`', `AS INSERT INTO ${T('raw')} BY NAME`, '  SELECT user_id, kind FROM STREAM(events);'].join('\n'),
    );
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain(
      'return spark.readStream.schema("`user_id` BIGINT, `kind` STRING, `event_time` TIMESTAMP").parquet("/data/events/*.parquet")',
    );
    expect(lowered.entry('flow', 'load')).toMatchObject({ status: 'MAPPED', file: 'transformations/lake.raw.sql' });
  });

  it('a batch read of a source that other flows stream goes native', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'tables:',
        '  lake.raw: { kind: streaming_table, sql: "SELECT * FROM STREAM(events)" }',
        '  lake.all: { mode: overwrite, sql: "SELECT count(*) AS n FROM events" }',
      ),
    );
    expect(lowered.entry('flow', 'lake.all').reason).toMatch(/reads source events as a batch while other flows stream it/);
    expect(lowered.entry('flow', 'lake.raw').status).toBe('MAPPED');
  });
});

describe('once flow', () => {
  it('is run by native, and so is its target table', async () => {
    const lowered = await lowerYaml(
      session,
      yaml('pipeline: p', ...PARQUET_SOURCES, 'tables:', '  lake.raw: { kind: streaming_table }', 'flows:', '  backfill: { target: lake.raw, once: true, sql: SELECT id FROM orders }'),
    );
    expect(lowered.entry('flow', 'backfill')).toMatchObject({ status: 'RUN BY NATIVE' });
    expect(lowered.entry('flow', 'backfill').reason).toMatch(/once flow/);
    expect(lowered.entry('dataset', 'lake.raw').reason).toMatch(/flow backfill into it is run by native/);
    expect(lowered.files.map((file) => file.path)).not.toContain('transformations/lake.raw.sql');
  });
});

describe('views', () => {
  it('a view and a temporary view both become CREATE TEMPORARY VIEW; a view says why it is not published', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'views:',
        '  big: { sql: SELECT * FROM orders WHERE amount > 5 }',
        '  scratch: { temporary: true, sql: SELECT * FROM big }',
        'tables:',
        '  lake.t: { mode: overwrite, sql: SELECT * FROM scratch }',
      ),
    );
    expect(lowered.file('transformations/big.sql')).toContain('CREATE TEMPORARY VIEW `big`\nAS\n  SELECT * FROM orders WHERE amount > 5;');
    expect(lowered.file('transformations/scratch.sql')).toContain('CREATE TEMPORARY VIEW `scratch`\nAS\n  SELECT * FROM big;');
    expect(lowered.entry('dataset', 'big').notes.join(' ')).toMatch(/not published/);
    expect(lowered.entry('dataset', 'scratch').notes).toEqual([]);
  });
});

describe('windowed aggregation with a watermark in append mode', () => {
  it('adds the WATERMARK clause to the one STREAM() read and rewrites time_bucket to window().start', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'tables:',
        '  lake.per_window:',
        '    kind: streaming_table',
        '    watermark: { column: event_time, delay: 10 min }',
        "    sql: SELECT time_bucket(INTERVAL '5 minutes', event_time) AS window_start, count(*) AS n FROM STREAM(events) GROUP BY time_bucket(INTERVAL '5 minutes', event_time)",
      ),
    );
    expect(lowered.file('transformations/lake.per_window.sql')).toContain(
      `CREATE STREAMING TABLE ${T('per_window')}\nAS\n  SELECT window(event_time, '5 minutes').start AS window_start, count(*) AS n FROM STREAM(events) WATERMARK event_time DELAY OF INTERVAL 10 MINUTES GROUP BY window(event_time, '5 minutes');`,
    );
    const entry = lowered.entry('flow', 'lake.per_window');
    expect(entry.status).toBe('MAPPED');
    expect(entry.construct).toMatch(/windowed aggregation with WATERMARK event_time DELAY OF INTERVAL 10 minutes, append mode/);
  });

  it('a source watermark becomes withWatermark on the streamed source', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        'sources:',
        '  events: { format: parquet, path: /e/*.parquet, schema: { t: timestamptz }, watermark: { column: t, delay: 1 hour } }',
        'tables:',
        '  lake.raw: { kind: streaming_table, sql: "SELECT * FROM STREAM(events)" }',
      ),
    );
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain('.parquet("/e/*.parquet").withWatermark("t", "1 hour")');
  });
});

describe('update and complete output modes', () => {
  it.each(['update', 'complete'])('%s into a streaming table is run by native', async (mode) => {
    const lowered = await lowerYaml(
      session,
      yaml('pipeline: p', ...PARQUET_SOURCES, 'tables:', `  lake.counts: { kind: streaming_table, output_mode: ${mode}, sql: "SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind" }`),
    );
    expect(lowered.entry('flow', 'lake.counts').reason).toBe(`output mode ${mode}: SDP streaming tables are written in append mode only`);
    expect(lowered.entry('dataset', 'lake.counts').status).toBe('RUN BY NATIVE');
  });

  it('complete into a sink is refused: SDP sinks append and the native engine has no sinks', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'sinks:',
        '  out: { format: parquet, options: { path: /tmp/out } }',
        'flows:',
        '  counts: { target: out, output_mode: complete, sql: "SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind" }',
        '  rows: { target: out, sql: "SELECT * FROM STREAM(events)" }',
      ),
    );
    expect(lowered.entry('flow', 'counts')).toMatchObject({ status: 'REFUSED' });
    expect(lowered.entry('flow', 'rows').status).toBe('MAPPED');
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain('dp.create_sink("out", format="parquet", options={"path": "/tmp/out"})');
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain(
      '@dp.append_flow(target="out", name="rows")\ndef flow_rows():\n    return spark.sql("SELECT * FROM STREAM(events)")',
    );
    expect(lowered.allText).not.toContain('counts');
    expect(lowered.entry('flow', 'rows').file).toBe('transformations/sources_and_sinks.py');
  });
});

describe('expectations', () => {
  it('each expectation is reported as run by native, and its dataset with it', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        ...PARQUET_SOURCES,
        'tables:',
        '  lake.checked:',
        '    mode: overwrite',
        '    expectations: { positive: amount > 0, named: { condition: customer IS NOT NULL, action: fail } }',
        '    sql: SELECT * FROM orders',
      ),
    );
    expect(lowered.entry('expectation', 'lake.checked.positive')).toMatchObject({ kind: 'warn', status: 'RUN BY NATIVE' });
    expect(lowered.entry('expectation', 'lake.checked.named').reason).toMatch(/^expect_or_fail \(customer IS NOT NULL\)/);
    expect(lowered.entry('dataset', 'lake.checked').reason).toMatch(/2 expectations/);
    expect(lowered.entry('flow', 'lake.checked').reason).toBe('its target lake.checked is run by native');
  });
});

describe('apply changes', () => {
  const CDC = (options: string) =>
    yaml(
      'pipeline: p',
      'sources:',
      '  changes: { format: parquet, path: /c/*.parquet, schema: { id: long, name: string, op: string, seq: long } }',
      'tables:',
      '  lake.customers: { kind: streaming_table }',
      'flows:',
      `  apply: { target: lake.customers, apply_changes: { keys: [id], sequence_by: seq${options} }, sql: "SELECT * FROM STREAM(changes)" }`,
    );

  it('SCD type 1 maps to AUTO CDC from Spark 4.2 on, with its change feed as a temporary view', async () => {
    const lowered = await lowerYaml(session, CDC(", apply_as_deletes: \"op = 'd'\", except_column_list: [op]"), '4.3');
    expect(lowered.file('transformations/lake.customers.sql')).toContain(
      [
        `CREATE STREAMING TABLE ${T('customers')};`,
        '',
        'CREATE TEMPORARY VIEW `apply__changes`',
        'AS',
        '  SELECT * FROM STREAM(changes);',
        '',
        'CREATE FLOW `apply`',
        `AS AUTO CDC INTO ${T('customers')}`,
        'FROM STREAM(`apply__changes`)',
        'KEYS (`id`)',
        "APPLY AS DELETE WHEN op = 'd'",
        'SEQUENCE BY `seq`',
        'COLUMNS * EXCEPT (`op`)',
        'STORED AS SCD TYPE 1;',
      ].join('\n'),
    );
    expect(lowered.entry('flow', 'apply')).toMatchObject({ status: 'MAPPED', construct: 'CREATE FLOW … AS AUTO CDC INTO … STORED AS SCD TYPE 1' });
  });

  it('SCD type 1 on Spark 4.1 stays native', async () => {
    const lowered = await lowerYaml(session, CDC(''), '4.1');
    expect(lowered.entry('flow', 'apply').reason).toMatch(/AUTO CDC needs Spark 4.2 or later/);
    expect(lowered.entry('dataset', 'lake.customers').status).toBe('RUN BY NATIVE');
  });

  it('ignore_null_updates and SCD type 2 stay native even on 4.3', async () => {
    expect((await lowerYaml(session, CDC(', ignore_null_updates: true'), '4.3')).entry('flow', 'apply').reason).toMatch(/IGNORE NULL UPDATES/);
    expect((await lowerYaml(session, CDC(', stored_as_scd_type: 2'), '4.3')).entry('flow', 'apply').reason).toMatch(/SCD type 2/);
  });
});

describe('Kafka sources', () => {
  it('JSON with a schema becomes readStream.format("kafka") with from_json; Avro stays native and so do its readers', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        'sources:',
        '  clicks: { format: kafka, topic: clicks, bootstrap_servers: "k:9092", starting_offsets: latest, options: { security.protocol: PLAINTEXT }, schema: { id: long } }',
        '  pays: { format: kafka, topic: pays, bootstrap_servers: "k:9092", value_format: avro }',
        'tables:',
        '  lake.clicks: { kind: streaming_table, sql: "SELECT id FROM STREAM(clicks)" }',
        '  lake.pays: { kind: streaming_table, sql: "SELECT * FROM STREAM(pays)" }',
      ),
    );
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain(
      [
        '@dp.temporary_view(name="clicks")',
        'def source_clicks():',
        '    raw = spark.readStream.format("kafka").options(**{"kafka.bootstrap.servers": "k:9092", "kafka.security.protocol": "PLAINTEXT", "startingOffsets": "latest", "subscribe": "clicks"}).load()',
        '    decoded = raw.select(F.from_json(F.col("value").cast("string"), "`id` BIGINT").alias("value")).select("value.*")',
        '    return decoded',
      ].join('\n'),
    );
    expect(lowered.entry('dataset', 'pays').reason).toMatch(/Kafka value format avro/);
    expect(lowered.entry('flow', 'lake.pays').reason).toBe('it reads source pays, which is run by native');
    expect(lowered.entry('flow', 'lake.clicks').status).toBe('MAPPED');
  });
});

describe('Parquet sources', () => {
  it('several paths are read together in batch; streaming them is native', async () => {
    const lowered = await lowerYaml(
      session,
      yaml(
        'pipeline: p',
        'sources:',
        '  a: { format: parquet, path: [/x/1.parquet, "s3://b/k/*.parquet"] }',
        '  s: { format: parquet, path: [/x/1.parquet, /x/2.parquet] }',
        'tables:',
        '  lake.a: { mode: overwrite, sql: SELECT * FROM a }',
        '  lake.s: { kind: streaming_table, sql: "SELECT * FROM STREAM(s)" }',
      ),
    );
    expect(lowered.file('transformations/sources_and_sinks.py')).toContain('return spark.read.parquet("/x/1.parquet", "s3a://b/k/*.parquet")');
    expect(lowered.entry('dataset', 'a').notes.join(' ')).toMatch(/s3a/);
    expect(lowered.entry('dataset', 's').reason).toMatch(/streaming read of 2 Parquet paths/);
  });
});
