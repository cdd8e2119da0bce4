/**
 * The emitted SDP text and the report entry of each construct the lowering knows, from YAML
 * definitions analysed as `thund lower` does. Expected SQL is written from SDP's grammar. One row
 * per case: the definition, then what the generated files contain (or must not) and what the
 * report says of each element named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import type { LoweringEntry } from '../../../src/sdp/lowering-report.js';
import { lowerYaml, PARQUET_SOURCES, yaml } from './lower-helpers.js';

let session: DuckDbSession;
beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
});
afterAll(() => session.close());

const T = (name: string): string => `\`default\`.\`lake\`.\`${name}\``;
const SOURCES_PY = 'transformations/sources_and_sinks.py';

type EntryKey = `${LoweringEntry['element']} ${string}`;

interface ConstructCase {
  readonly construct: string;
  readonly name: string;
  /** YAML lines after `pipeline: p`. */
  readonly definition: readonly string[];
  readonly sparkVersion?: string;
  /** Generated file → texts it contains. */
  readonly files?: Readonly<Record<string, readonly string[]>>;
  /** `element name` → what its report entry matches (toMatchObject). */
  readonly entries?: Readonly<Record<EntryKey, Partial<Record<keyof LoweringEntry, unknown>>>>;
  /** Texts no generated file contains. */
  readonly absent?: readonly string[];
  /** Files that are not generated. */
  readonly noFiles?: readonly string[];
}

const reason = (pattern: RegExp) => ({ reason: expect.stringMatching(pattern) });
const noteMatching = (pattern: RegExp) => ({ notes: expect.arrayContaining([expect.stringMatching(pattern)]) });

const CDC = (options: string): string[] => [
  'sources:',
  '  changes: { format: parquet, path: /c/*.parquet, schema: { id: long, name: string, op: string, seq: long } }',
  'tables:',
  '  lake.customers: { kind: streaming_table }',
  'flows:',
  `  apply: { target: lake.customers, apply_changes: { keys: [id], sequence_by: seq${options} }, sql: "SELECT * FROM STREAM(changes)" }`,
];

/** Streaming table lake.per_window over the events source, with a 10-minute watermark. */
const perWindow = (sql: string): string[] => [
  ...PARQUET_SOURCES,
  'tables:',
  '  lake.per_window:',
  '    kind: streaming_table',
  '    watermark: { column: event_time, delay: 10 min }',
  `    sql: ${sql}`,
];

const CASES: readonly ConstructCase[] = [
  {
    construct: 'batch materialized view',
    name: 'a complete-mode table becomes CREATE MATERIALIZED VIEW over its query, with comment, identity partition and properties',
    definition: [
      ...PARQUET_SOURCES,
      'tables:',
      '  lake.totals:',
      '    mode: overwrite',
      '    comment: "per customer\'s"',
      '    partitioned_by: [customer]',
      '    properties: { write.format.default: parquet }',
      '    sql: SELECT customer, count(*) AS n FROM orders GROUP BY customer',
    ],
    files: {
      'transformations/lake.totals.sql': [
        [
          `CREATE MATERIALIZED VIEW ${T('totals')}`,
          "COMMENT 'per customer\\'s'",
          'PARTITIONED BY (`customer`)',
          "TBLPROPERTIES ('write.format.default' = 'parquet')",
          'AS',
          '  SELECT customer, count(*) AS n FROM orders GROUP BY customer;',
        ].join('\n'),
      ],
      [SOURCES_PY]: ['@dp.temporary_view(name="orders")\ndef source_orders():\n    return spark.read.parquet("/data/orders/*.parquet")'],
    },
    entries: {
      'dataset lake.totals': { status: 'MAPPED', construct: 'CREATE MATERIALIZED VIEW', file: 'transformations/lake.totals.sql' },
      'flow lake.totals': { status: 'MAPPED' },
      'dataset orders': { status: 'MAPPED', file: SOURCES_PY },
    },
  },
  {
    construct: 'batch materialized view',
    name: 'an append-mode materialized view stays native: SDP would replace the rows the native engine adds',
    definition: [...PARQUET_SOURCES, 'tables:', '  lake.log:', '    mode: append', '    sql: SELECT * FROM orders'],
    entries: {
      'flow lake.log': { status: 'RUN BY NATIVE', ...reason(/output mode append into a materialized view/) },
      'dataset lake.log': { status: 'RUN BY NATIVE' },
    },
    absent: ['`log`'],
  },
  {
    construct: 'batch materialized view',
    name: 'reads of other tables are qualified with the catalog; strings and comments are left alone',
    definition: [
      ...PARQUET_SOURCES,
      'tables:',
      '  lake.a: { mode: overwrite, sql: SELECT id FROM orders }',
      "  lake.b: { mode: overwrite, sql: \"SELECT id, 'lake.a' AS label -- lake.a\\nFROM lake.a -- a trailing comment\" }",
    ],
    files: { 'transformations/lake.b.sql': [`SELECT id, 'lake.a' AS label -- lake.a\n  FROM ${T('a')};`] },
  },
  {
    construct: 'streaming table with an append flow',
    name: 'becomes CREATE STREAMING TABLE plus CREATE FLOW … INSERT INTO … BY NAME over a streamed Parquet source',
    definition: [
      ...PARQUET_SOURCES,
      'tables:',
      '  lake.raw: { kind: streaming_table, schema: { user_id: long, kind: "string not null" } }',
      'flows:',
      '  load: { target: lake.raw, sql: "SELECT user_id, kind FROM STREAM(events)" }',
    ],
    files: {
      'transformations/lake.raw.sql': [
        [`CREATE STREAMING TABLE ${T('raw')} (\`user_id\` BIGINT, \`kind\` STRING NOT NULL);`, '', 'CREATE FLOW `load`', `AS INSERT INTO ${T('raw')} BY NAME`, '  SELECT user_id, kind FROM STREAM(events);'].join('\n'),
      ],
      [SOURCES_PY]: ['return spark.readStream.schema("`user_id` BIGINT, `kind` STRING, `event_time` TIMESTAMP").parquet("/data/events/*.parquet")'],
    },
    entries: { 'flow load': { status: 'MAPPED', file: 'transformations/lake.raw.sql' } },
  },
  {
    construct: 'streaming table with an append flow',
    name: 'a batch read of a source that other flows stream goes native',
    definition: [...PARQUET_SOURCES, 'tables:', '  lake.raw: { kind: streaming_table, sql: "SELECT * FROM STREAM(events)" }', '  lake.all: { mode: overwrite, sql: "SELECT count(*) AS n FROM events" }'],
    entries: {
      'flow lake.all': reason(/reads source events as a batch while other flows stream it/),
      'flow lake.raw': { status: 'MAPPED' },
    },
  },
  {
    construct: 'once flow',
    name: 'is run by native, and so is its target table',
    definition: [...PARQUET_SOURCES, 'tables:', '  lake.raw: { kind: streaming_table }', 'flows:', '  backfill: { target: lake.raw, once: true, sql: SELECT id FROM orders }'],
    entries: {
      'flow backfill': { status: 'RUN BY NATIVE', ...reason(/once flow/) },
      'dataset lake.raw': reason(/flow backfill into it is run by native/),
    },
    noFiles: ['transformations/lake.raw.sql'],
  },
  {
    construct: 'views',
    name: 'a view and a temporary view both become CREATE TEMPORARY VIEW; a view says why it is not published',
    definition: [
      ...PARQUET_SOURCES,
      'views:',
      '  big: { sql: SELECT * FROM orders WHERE amount > 5 }',
      '  scratch: { temporary: true, sql: SELECT * FROM big }',
      'tables:',
      '  lake.t: { mode: overwrite, sql: SELECT * FROM scratch }',
    ],
    files: {
      'transformations/big.sql': ['CREATE TEMPORARY VIEW `big`\nAS\n  SELECT * FROM orders WHERE amount > 5;'],
      'transformations/scratch.sql': ['CREATE TEMPORARY VIEW `scratch`\nAS\n  SELECT * FROM big;'],
    },
    entries: { 'dataset big': noteMatching(/not published/), 'dataset scratch': { notes: [] } },
  },
  {
    construct: 'windowed aggregation with a watermark in append mode',
    name: 'adds the WATERMARK clause to the one STREAM() read and rewrites time_bucket to window().start',
    definition: perWindow("SELECT time_bucket(INTERVAL '5 minutes', event_time) AS window_start, count(*) AS n FROM STREAM(events) GROUP BY time_bucket(INTERVAL '5 minutes', event_time)"),
    files: {
      'transformations/lake.per_window.sql': [
        `CREATE STREAMING TABLE ${T('per_window')}\nAS\n  SELECT window(event_time, '5 minutes').start AS window_start, count(*) AS n FROM STREAM(events) WATERMARK event_time DELAY OF INTERVAL 10 MINUTES GROUP BY window(event_time, '5 minutes');`,
      ],
    },
    entries: { 'flow lake.per_window': { status: 'MAPPED', construct: expect.stringMatching(/windowed aggregation with WATERMARK event_time DELAY OF INTERVAL 10 minutes, append mode/) } },
  },
  {
    construct: 'windowed aggregation with a watermark in append mode',
    name: 'a source watermark becomes withWatermark on the streamed source',
    definition: [
      'sources:',
      '  events: { format: parquet, path: /e/*.parquet, schema: { t: timestamptz }, watermark: { column: t, delay: 1 hour } }',
      'tables:',
      '  lake.raw: { kind: streaming_table, sql: "SELECT * FROM STREAM(events)" }',
    ],
    files: { [SOURCES_PY]: ['.parquet("/e/*.parquet").withWatermark("t", "1 hour")'] },
  },
  ...(['ALL', '1, 2'] as const).map(
    (groupBy): ConstructCase => ({
      construct: 'windowed aggregation with a watermark in append mode',
      name: `GROUP BY ${groupBy} (no time_bucket window grouped by name) is run by native: Spark would group by window().start, without the watermark`,
      definition: perWindow(`SELECT time_bucket(INTERVAL '5 minutes', event_time) AS window_start, kind, count(*) AS n FROM STREAM(events) GROUP BY ${groupBy}`),
      entries: {
        'flow lake.per_window': reason(/GROUP BY names no time_bucket\(…\) window \(GROUP BY ALL or by position\).*group by the time_bucket\(…\) expression/),
        'dataset lake.per_window': { status: 'RUN BY NATIVE' },
      },
    }),
  ),
  ...(['update', 'complete'] as const).map(
    (mode): ConstructCase => ({
      construct: 'update and complete output modes',
      name: `${mode} into a streaming table is run by native`,
      definition: [...PARQUET_SOURCES, 'tables:', `  lake.counts: { kind: streaming_table, output_mode: ${mode}, sql: "SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind" }`],
      entries: {
        'flow lake.counts': { reason: `output mode ${mode}: SDP streaming tables are written in append mode only` },
        'dataset lake.counts': { status: 'RUN BY NATIVE' },
      },
    }),
  ),
  {
    construct: 'update and complete output modes',
    name: 'complete into a sink is refused: SDP sinks append and the native engine has no sinks',
    definition: [
      ...PARQUET_SOURCES,
      'sinks:',
      '  out: { format: parquet, options: { path: /tmp/out } }',
      'flows:',
      '  counts: { target: out, output_mode: complete, sql: "SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind" }',
      '  rows: { target: out, sql: "SELECT * FROM STREAM(events)" }',
    ],
    files: {
      [SOURCES_PY]: [
        'dp.create_sink("out", format="parquet", options={"path": "/tmp/out"})',
        '@dp.append_flow(target="out", name="rows")\ndef flow_rows():\n    return spark.sql("SELECT * FROM STREAM(events)")',
      ],
    },
    entries: { 'flow counts': { status: 'REFUSED' }, 'flow rows': { status: 'MAPPED', file: SOURCES_PY } },
    absent: ['counts'],
  },
  {
    construct: 'expectations',
    name: 'each expectation is reported as run by native, and its dataset with it',
    definition: [
      ...PARQUET_SOURCES,
      'tables:',
      '  lake.checked:',
      '    mode: overwrite',
      '    expectations: { positive: amount > 0, named: { condition: customer IS NOT NULL, action: fail } }',
      '    sql: SELECT * FROM orders',
    ],
    entries: {
      'expectation lake.checked.positive': { kind: 'warn', status: 'RUN BY NATIVE' },
      'expectation lake.checked.named': reason(/^expect_or_fail \(customer IS NOT NULL\)/),
      'dataset lake.checked': reason(/2 expectations/),
      'flow lake.checked': { reason: 'its target lake.checked is run by native' },
    },
  },
  ...(['4.2', '4.3'] as const).map(
    (sparkVersion): ConstructCase => ({
      construct: 'apply changes',
      name: `SCD type 1 maps to dp.create_auto_cdc_flow on Spark ${sparkVersion}, with its change feed as a temporary view`,
      definition: CDC(", apply_as_deletes: \"op = 'd'\", except_column_list: [op]"),
      sparkVersion,
      files: {
        'transformations/lake.customers.sql': [[`CREATE STREAMING TABLE ${T('customers')};`, '', 'CREATE TEMPORARY VIEW `apply__changes`', 'AS', '  SELECT * FROM STREAM(changes);'].join('\n')],
        [SOURCES_PY]: [
          [
            'dp.create_auto_cdc_flow(',
            '    target="default.lake.customers",',
            '    source="apply__changes",',
            '    keys=["id"],',
            '    sequence_by="seq",',
            '    apply_as_deletes="op = \'d\'",',
            '    except_column_list=["op"],',
            '    stored_as_scd_type=1,',
            '    name="apply",',
            ')',
          ].join('\n'),
        ],
      },
      entries: {
        'flow apply': { status: 'MAPPED', construct: 'dp.create_auto_cdc_flow(…, stored_as_scd_type=1) (AUTO CDC)', file: SOURCES_PY, ...noteMatching(/row-level operations \(MERGE\)/) },
        'dataset lake.customers': { status: 'MAPPED', file: 'transformations/lake.customers.sql' },
      },
      absent: ['AUTO CDC INTO'],
    }),
  ),
  {
    construct: 'apply changes',
    name: 'a column list becomes column_list',
    definition: CDC(', column_list: [id, name]'),
    sparkVersion: '4.2',
    files: { [SOURCES_PY]: ['    keys=["id"],\n    sequence_by="seq",\n    column_list=["id", "name"],\n    stored_as_scd_type=1,'] },
  },
  {
    construct: 'apply changes',
    name: 'SCD type 1 on Spark 4.1 stays native',
    definition: CDC(''),
    sparkVersion: '4.1',
    entries: { 'flow apply': reason(/AUTO CDC needs Spark 4.2 or later/), 'dataset lake.customers': { status: 'RUN BY NATIVE' } },
  },
  {
    construct: 'apply changes',
    name: 'ignore_null_updates stays native even on 4.3',
    definition: CDC(', ignore_null_updates: true'),
    sparkVersion: '4.3',
    entries: { 'flow apply': reason(/IGNORE NULL UPDATES/) },
  },
  {
    construct: 'apply changes',
    name: 'SCD type 2 stays native even on 4.3',
    definition: CDC(', stored_as_scd_type: 2'),
    sparkVersion: '4.3',
    entries: { 'flow apply': reason(/SCD type 2/) },
  },
  {
    construct: 'Kafka sources',
    name: 'JSON with a schema becomes readStream.format("kafka") with from_json; Avro stays native and so do its readers',
    definition: [
      'sources:',
      '  clicks: { format: kafka, topic: clicks, bootstrap_servers: "k:9092", starting_offsets: latest, options: { security.protocol: PLAINTEXT }, schema: { id: long } }',
      '  pays: { format: kafka, topic: pays, bootstrap_servers: "k:9092", value_format: avro }',
      'tables:',
      '  lake.clicks: { kind: streaming_table, sql: "SELECT id FROM STREAM(clicks)" }',
      '  lake.pays: { kind: streaming_table, sql: "SELECT * FROM STREAM(pays)" }',
    ],
    files: {
      [SOURCES_PY]: [
        [
          '@dp.temporary_view(name="clicks")',
          'def source_clicks():',
          '    raw = spark.readStream.format("kafka").options(**{"includeHeaders": "true", "kafka.bootstrap.servers": "k:9092", "kafka.security.protocol": "PLAINTEXT", "startingOffsets": "latest", "subscribe": "clicks"}).load()',
          '    decoded = raw.select(F.col("topic").alias("_kafka_topic"), F.col("partition").alias("_kafka_partition"), F.col("offset").alias("_kafka_offset"), F.col("timestamp").cast("timestamp_ntz").alias("_kafka_timestamp"), F.col("key").cast("string").alias("_kafka_key"), F.coalesce(F.transform(F.col("headers"), lambda h: F.struct(h["key"].alias("key"), h["value"].cast("string").alias("value"))), F.array().cast("array<struct<key:string,value:string>>")).alias("_kafka_headers"), F.from_json(F.col("value").cast("string"), "`id` BIGINT").alias("value"))',
          '    return decoded.select("_kafka_topic", "_kafka_partition", "_kafka_offset", "_kafka_timestamp", "_kafka_key", "_kafka_headers", "value.*")',
        ].join('\n'),
      ],
    },
    entries: {
      'dataset pays': reason(/Kafka value format avro/),
      'flow lake.pays': { reason: 'it reads source pays, which is run by native' },
      'flow lake.clicks': { status: 'MAPPED' },
    },
  },
  {
    construct: 'Parquet sources',
    name: 'several paths are read together in batch; streaming them is native',
    definition: [
      'sources:',
      '  a: { format: parquet, path: [/x/1.parquet, "s3://b/k/*.parquet"] }',
      '  s: { format: parquet, path: [/x/1.parquet, /x/2.parquet] }',
      'tables:',
      '  lake.a: { mode: overwrite, sql: SELECT * FROM a }',
      '  lake.s: { kind: streaming_table, sql: "SELECT * FROM STREAM(s)" }',
    ],
    files: { [SOURCES_PY]: ['return spark.read.parquet("/x/1.parquet", "s3a://b/k/*.parquet")'] },
    entries: { 'dataset a': noteMatching(/s3a/), 'dataset s': reason(/streaming read of 2 Parquet paths/) },
  },
];

describe('lowering each construct', () => {
  it.each(CASES)('$construct: $name', async (testCase) => {
    const lowered = await lowerYaml(session, yaml('pipeline: p', ...testCase.definition), testCase.sparkVersion);
    for (const [file, texts] of Object.entries(testCase.files ?? {})) {
      for (const text of texts) expect(lowered.file(file), file).toContain(text);
    }
    for (const [key, expected] of Object.entries(testCase.entries ?? {})) {
      const [element, ...name] = key.split(' ');
      expect(lowered.entry(element as LoweringEntry['element'], name.join(' ')), key).toMatchObject(expected);
    }
    for (const text of testCase.absent ?? []) expect(lowered.allText).not.toContain(text);
    for (const file of testCase.noFiles ?? []) expect(lowered.files.map((f) => f.path)).not.toContain(file);
  });

  it('every case asserts something', () => {
    for (const testCase of CASES) {
      const count = Object.keys(testCase.files ?? {}).length + Object.keys(testCase.entries ?? {}).length + (testCase.absent?.length ?? 0) + (testCase.noFiles?.length ?? 0);
      expect(count, testCase.name).toBeGreaterThan(0);
    }
  });
});
