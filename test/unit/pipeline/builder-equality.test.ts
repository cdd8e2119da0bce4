/**
 * The TypeScript builder and the YAML definition produce the same IR graph (origins aside: one
 * points into the .ts file, the other into the .yaml file); the skeleton's spec maps to
 * materialized views and append flows; graphs are immutable.
 */
import path from 'node:path';
import { Decimal, Int64, TimestampMicrosecond, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { kafka, parquet, pipeline } from '../../../src/pipeline/builder.js';
import type { PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import { parsePipelineDefinition, type PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { loadPipelineDefinition } from '../../../src/pipeline/definition-file.js';
import { withoutOrigins } from '../../support/without-origins.js';

const REPO = path.resolve(import.meta.dirname, '../../..');

function definition(text: string, file = '/project/p.yaml'): PipelineDefinition {
  const parsed = parsePipelineDefinition(text, file);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  return parsed.definition;
}

const YAML = `
pipeline: shop
sources:
  orders:
    format: parquet
    path: [data/a.parquet, "s3://bucket/b/*.parquet"]
    schema: { id: long, ts: timestamp, amount: "decimal(10, 2)", customer: string not null }
    watermark: { column: ts, delay: 10 minutes }
  changes:
    format: kafka
    topic: cdc.customers
    bootstrap_servers: localhost:9092
    value_format: debezium
    options: { group.id: thund, max.poll.records: 500 }
tables:
  lake.orders:
    kind: streaming_table
    partitioned_by: ["day(ts)", "bucket(16, id)", customer]
    properties: { write.target-file-size-bytes: 1048576 }
    comment: every order
    expectations:
      positive: { condition: amount > 0, action: drop }
      has_customer: customer IS NOT NULL
    sql: SELECT * FROM STREAM(orders)
    trigger: { processing_time: 30 seconds }
  lake.customers:
    kind: streaming_table
  lake.totals:
    mode: overwrite
views:
  recent:
    temporary: true
    sql: SELECT * FROM STREAM(orders) WHERE ts > now() - INTERVAL 1 DAY
sinks:
  alerts:
    format: kafka
    options: { topic: alerts }
flows:
  customers_cdc:
    target: lake.customers
    sql: SELECT after.*, source.lsn AS lsn FROM STREAM(changes)
    apply_changes:
      keys: [id]
      sequence_by: lsn
      apply_as_deletes: op = 'd'
      ignore_null_updates: true
      except_column_list: [op]
      stored_as_scd_type: 2
      track_history_column_list: [name]
  totals:
    target: lake.totals
    sql: SELECT customer, sum(amount) AS total FROM lake.orders GROUP BY customer
  per_minute_alerts:
    target: alerts
    sql: SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS m, count(*) AS n FROM STREAM(recent) GROUP BY 1
    output_mode: update
    watermark: { column: ts, delay: 1 minute }
    trigger: available_now
  backfill:
    target: lake.orders
    sql: SELECT * FROM read_parquet('/old/*.parquet')
    once: true
`;

function builtShop(): PipelineGraph {
  return pipeline('shop')
    .source('orders', parquet(['/project/data/a.parquet', 's3://bucket/b/*.parquet']), {
      schema: { id: 'long', ts: new TimestampMicrosecond(), amount: new Decimal(2, 10, 128), customer: { type: new Utf8(), nullable: false } },
      watermark: { column: 'ts', delay: '10 minutes' },
    })
    .source('changes', kafka({ topic: 'cdc.customers', bootstrapServers: 'localhost:9092', valueFormat: 'debezium', options: { 'group.id': 'thund', 'max.poll.records': '500' } }))
    .streamingTable('lake.orders', {
      partitionedBy: ['day(ts)', 'bucket(16, id)', 'customer'],
      properties: { 'write.target-file-size-bytes': '1048576' },
      comment: 'every order',
      expectations: { positive: { condition: 'amount > 0', action: 'drop' }, has_customer: 'customer IS NOT NULL' },
      sql: 'SELECT * FROM STREAM(orders)',
      trigger: { processingTime: '30 seconds' },
    })
    .streamingTable('lake.customers')
    .materializedView('lake.totals')
    .temporaryView('recent', { sql: 'SELECT * FROM STREAM(orders) WHERE ts > now() - INTERVAL 1 DAY' })
    .sink('alerts', { format: 'kafka', options: { topic: 'alerts' } })
    .flow('customers_cdc', {
      target: 'lake.customers',
      sql: 'SELECT after.*, source.lsn AS lsn FROM STREAM(changes)',
      applyChanges: {
        keys: ['id'],
        sequenceBy: 'lsn',
        applyAsDeletes: "op = 'd'",
        ignoreNullUpdates: true,
        exceptColumnList: ['op'],
        storedAsScdType: 2,
        trackHistoryColumnList: ['name'],
      },
    })
    .flow('totals', { target: 'lake.totals', sql: 'SELECT customer, sum(amount) AS total FROM lake.orders GROUP BY customer', outputMode: 'complete' })
    .flow('per_minute_alerts', {
      target: 'alerts',
      sql: 'SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS m, count(*) AS n FROM STREAM(recent) GROUP BY 1',
      outputMode: 'update',
      watermark: { column: 'ts', delay: '1 minute' },
      trigger: 'available-now',
    })
    .flow('backfill', { target: 'lake.orders', sql: "SELECT * FROM read_parquet('/old/*.parquet')", kind: 'once' })
    .build();
}

describe('builder and YAML produce the same graph', () => {
  it('for a pipeline using every kind of element', () => {
    const fromYaml = definition(YAML).graph;
    const fromBuilder = builtShop();
    expect(withoutOrigins(fromBuilder)).toEqual(withoutOrigins(fromYaml));
    // Not vacuous: the graph holds what was declared.
    expect(fromYaml.datasets.map((d) => `${d.kind} ${d.name}`)).toEqual([
      'source orders',
      'source changes',
      'streaming-table lake.orders',
      'streaming-table lake.customers',
      'materialized-view lake.totals',
      'temporary-view recent',
      'sink alerts',
    ]);
    expect(fromYaml.flows.map((f) => `${f.kind} ${f.name} → ${f.target} (${f.outputMode})${f.implicit ? ' implicit' : ''}`)).toEqual([
      'append lake.orders → lake.orders (append) implicit',
      'append recent → recent (append) implicit',
      'apply-changes customers_cdc → lake.customers (update)',
      'append totals → lake.totals (complete)',
      'append per_minute_alerts → alerts (update)',
      'once backfill → lake.orders (append)',
    ]);
  });

  it('parses text forms into typed values', () => {
    const graph = definition(YAML).graph;
    const orders = graph.datasets[0];
    expect(orders?.kind === 'source' && orders.watermark).toEqual({ column: 'ts', delay: { text: '10 minutes', micros: 600_000_000n } });
    expect(orders?.schema?.map((c) => [c.name, String(c.type), c.nullable])).toEqual([
      ['id', String(new Int64()), true],
      ['ts', String(new TimestampMicrosecond()), true],
      ['amount', String(new Decimal(2, 10, 128)), true],
      ['customer', String(new Utf8()), false],
    ]);
    const table = graph.datasets[2];
    expect(table?.kind === 'streaming-table' && table.table.partitioning).toEqual([
      { transform: 'day', column: 'ts', term: 'day(ts)' },
      { transform: 'bucket', column: 'id', parameter: 16, term: 'bucket(16, id)' },
      { transform: 'identity', column: 'customer', term: 'customer' },
    ]);
    const cdc = graph.flows.find((flow) => flow.name === 'customers_cdc');
    expect(cdc?.kind === 'apply-changes' && cdc.changes).toEqual({
      keys: ['id'],
      sequenceBy: 'lsn',
      applyAsDeletes: "op = 'd'",
      ignoreNullUpdates: true,
      columns: { except: ['op'] },
      storedAsScdType: 2,
      trackHistory: { include: ['name'] },
    });
  });

  it('origins point at the YAML key and at the builder call', () => {
    const yaml = definition(YAML).graph;
    expect(yaml.datasets[0]?.origin).toEqual({ file: '/project/p.yaml', line: 4, column: 3 });
    expect(yaml.flows[0]?.query.origin).toEqual({ file: '/project/p.yaml', line: 24, column: 10 });
    const line = Number(new Error().stack?.split('\n')[1]?.match(/:(\d+):\d+\)?$/)?.[1]) + 1;
    const built = pipeline('x').source('s', parquet('a.parquet')).build();
    expect(built.datasets[0]?.origin).toMatchObject({ file: import.meta.filename, line });
  });
});

describe('the skeleton spec', () => {
  it('maps to a materialized view written by an append flow', async () => {
    const loaded = await loadPipelineDefinition(path.join(REPO, 'examples/quickstart/pipeline.yaml'));
    if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('\n'));
    const { graph } = loaded.definition;
    expect(graph.name).toBe('quickstart');
    expect(graph.datasets.map((d) => [d.kind, d.name])).toEqual([
      ['source', 'orders'],
      ['materialized-view', 'lake.orders'],
    ]);
    expect(graph.flows.map((f) => [f.kind, f.name, f.target, f.outputMode, f.implicit])).toEqual([['append', 'load_orders', 'lake.orders', 'append', false]]);
    expect(loaded.definition.catalog).toEqual({ type: 'sql' });
  });

  it('mode: overwrite makes the flow output mode complete', () => {
    const graph = definition('pipeline: p\nsources: { s: { format: parquet, path: a.parquet } }\ntables: { lake.t: { mode: overwrite } }\nflows: { f: { target: lake.t, sql: SELECT 1 } }\n').graph;
    expect(graph.flows[0]?.outputMode).toBe('complete');
  });
});

describe('immutability', () => {
  it('the built graph is frozen and later registrations do not change it', () => {
    const builder = pipeline('p').source('s', parquet('a.parquet'));
    const graph = builder.build();
    builder.materializedView('lake.t', { sql: 'SELECT * FROM s' });
    expect(graph.datasets).toHaveLength(1);
    expect(Object.isFrozen(graph)).toBe(true);
    expect(Object.isFrozen(graph.datasets)).toBe(true);
    expect(Object.isFrozen(graph.datasets[0])).toBe(true);
    expect(() => (graph.datasets as unknown[]).push({})).toThrow(TypeError);
    expect(builder.build().datasets).toHaveLength(2);
  });

  it('a bad text form is an error naming the element', () => {
    expect(() => pipeline('p').source('s', parquet('a'), { watermark: { column: 'ts', delay: 'soon' } })).toThrow(
      'source "s": watermark delay: "soon" is not a duration like "10 seconds", "5 minutes" or "1 hour"',
    );
    expect(() => pipeline('p').materializedView('lake.t', { partitionedBy: ['hash(x)'] })).toThrow(/materialized view "lake.t": "hash\(x\)" is not a partition term/);
  });
});
