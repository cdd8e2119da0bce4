/**
 * The builder refuses a bad input where it is declared, as JavaScript or untyped TypeScript would
 * write it: the element, the field and what was expected, and the stack's first frame outside
 * the builder is the declaring line. Inputs its types allow still build.
 */
import { Int64, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { kafka, parquet, pipeline } from '../../../src/pipeline/builder.js';
import { stackFrames } from '../../../src/pipeline/ir/origin.js';

/** What JavaScript may pass where the types would not let TypeScript. */
const untyped = <T>(value: unknown): T => value as T;

function refusal(declare: () => unknown): InvalidInputError {
  try {
    declare();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('the builder accepted the input');
}

const CDC = { keys: ['id'], sequenceBy: 'lsn' };

describe('builder inputs are checked as they are declared', () => {
  it.each([
    [
      'a change format written as a string',
      () => pipeline('p').streamingTable('lake.t', { sql: 'SELECT 1', applyChanges: { ...CDC, changeFormat: untyped('debezium') } }),
      `streaming table "lake.t": applyChanges.changeFormat: expected { kind: 'rows' | 'row-kind' | 'debezium' } (got "debezium")`,
      'applyChanges.changeFormat',
    ],
    [
      'a row-kind change format without its column',
      () => pipeline('p').streamingTable('lake.t', { sql: 'SELECT 1', applyChanges: { ...CDC, changeFormat: untyped({ kind: 'row-kind' }) } }),
      'streaming table "lake.t": applyChanges.changeFormat.column: expected a string (got undefined)',
      'applyChanges.changeFormat.column',
    ],
    [
      'a misspelt option',
      () => pipeline('p').materializedView('lake.m', untyped({ partitionBy: ['day(ts)'] })),
      'materialized view "lake.m": partitionBy: unknown field (did you mean partitionedBy?); allowed: sql, kind, applyChanges, outputMode, watermark, trigger, partitionedBy, properties, keys, schema, comment, expectations',
      'partitionBy',
    ],
    [
      'a snake_case apply-changes option (the missing sequenceBy it stands for is not reported twice)',
      () => pipeline('p').flow('f', { target: 'lake.t', sql: 'SELECT 1', applyChanges: untyped({ keys: ['id'], sequence_by: 'lsn' }) }),
      'flow "f": applyChanges.sequence_by: unknown field (did you mean sequenceBy?); allowed: keys, sequenceBy, applyAsDeletes, applyAsTruncates, ignoreNullUpdates, columnList, exceptColumnList, storedAsScdType, trackHistoryColumnList, trackHistoryExceptColumnList, changeFormat',
      'applyChanges.sequence_by',
    ],
    [
      'a number where a string is expected',
      () => pipeline('p').view('v', { sql: untyped(42) }),
      'view "v": sql: expected a string (got 42)',
      'sql',
    ],
    [
      'a required field left out',
      () => pipeline('p').temporaryView('v', untyped({ comment: 'no query' })),
      'temporary view "v": sql: expected a string (got undefined)',
      'sql',
    ],
    [
      'an unknown source format',
      () => pipeline('p').source('raw', untyped({ format: 'csv', paths: ['a.csv'] })),
      `source "raw": options.format: expected parquet(…) or kafka(…): { format: 'parquet' | 'kafka', … } (got "csv")`,
      'options.format',
    ],
    [
      'a source watermark without its delay',
      () => pipeline('p').source('raw', parquet('a.parquet'), { watermark: untyped({ column: 'ts' }) }),
      'source "raw": watermark.delay: expected a string (got undefined)',
      'watermark.delay',
    ],
    ['a parquet path that is not text', () => parquet(untyped(['a.parquet', 3])), 'parquet(): paths[1]: expected a string (got 3)', 'paths[1]'],
    [
      'an unknown Kafka value format',
      () => kafka({ topic: 'orders', valueFormat: untyped('protobuf') }),
      `kafka(): valueFormat: expected 'json' | 'avro' | 'debezium' | 'debezium-avro' (got "protobuf")`,
      'valueFormat',
    ],
    [
      'an unknown expectation action (inside the object form of string | { condition, action })',
      () => pipeline('p').materializedView('lake.m', { expectations: { positive: { condition: 'amount > 0', action: untyped('dorp') } } }),
      `materialized view "lake.m": expectations.positive.action: expected 'warn' | 'drop' | 'fail' (got "dorp")`,
      'expectations.positive.action',
    ],
    [
      'a trigger in the YAML spelling',
      () => pipeline('p').streamingTable('lake.t', { trigger: untyped({ processing_time: '1 minute' }) }),
      'streaming table "lake.t": trigger.processing_time: unknown field (did you mean processingTime?); allowed: processingTime',
      'trigger.processing_time',
    ],
    [
      'an apply-changes SCD type written as text',
      () => pipeline('p').flow('f', { target: 'lake.t', sql: 'SELECT 1', applyChanges: { ...CDC, storedAsScdType: untyped('2') } }),
      'flow "f": applyChanges.storedAsScdType: expected 1 | 2 (got "2")',
      'applyChanges.storedAsScdType',
    ],
    [
      'a column type that is neither a name, a DataType nor { type, nullable }',
      () => pipeline('p').materializedView('lake.m', { schema: { id: untyped(8), 'unit price': { type: 'double', nullable: untyped('no') } } }),
      'materialized view "lake.m": schema.id: expected a type name, an Arrow DataType or { type, nullable? } (got 8); schema["unit price"].nullable: expected true or false (got "no")',
      'schema.id',
    ],
    [
      'a sink with two misspelt options',
      () => pipeline('p').sink('out', untyped({ fromat: 'kafka', optons: {} })),
      'sink "out": fromat: unknown field (did you mean format?); allowed: format, options, comment, expectations; optons: unknown field (did you mean options?); allowed: format, options, comment, expectations',
      'fromat',
    ],
    [
      'a table property that is not text',
      () => pipeline('p').materializedView('lake.m', { properties: { 'write.target-file-size-bytes': untyped(1048576) } }),
      'materialized view "lake.m": properties["write.target-file-size-bytes"]: expected a string (got 1048576)',
      'properties["write.target-file-size-bytes"]',
    ],
    ['an element name that is not text', () => pipeline('p').materializedView(untyped(7)), 'materialized view: name: expected a string (got 7)', 'name'],
    ['a pipeline without a name', () => pipeline(untyped(undefined)), 'pipeline: name: expected a string (got undefined)', 'name'],
    [
      'a query where the options belong',
      () => pipeline('p').materializedView('lake.m', untyped('SELECT 1')),
      'materialized view "lake.m": expected { sql?, partitionedBy?, … } (got "SELECT 1")',
      '',
    ],
  ])('refuses %s', (_case, declare, message, field) => {
    const error = refusal(declare);
    expect(error.message).toBe(message);
    expect(error.context).toEqual({ field });
  });

  it('keeps the declaring line: the first stack frame outside the builder is the caller', () => {
    const line = stackFrames(new Error().stack ?? '')[0]?.line ?? 0;
    const error = refusal(() => pipeline('p').view('v', untyped({ sql: 'SELECT 1', expectation: {} })));
    const caller = stackFrames(error.stack ?? '').find(({ file }) => !file.includes('/src/'));
    expect(caller?.file).toBe(import.meta.filename);
    expect(caller?.line).toBe(line + 1);
  });

  it('still refuses text forms its own way once the shape is right', () => {
    expect(refusal(() => pipeline('p').materializedView('lake.m', { partitionedBy: ['hour(ts'] })).message).toBe(
      'materialized view "lake.m": "hour(ts" is not a partition term (a column, or identity(col), year(col), month(col), day(col), hour(col), bucket(N, col), truncate(W, col), void(col))',
    );
  });

  it('accepts every form the types allow', () => {
    const graph = pipeline('shop')
      .source('orders', parquet(['a.parquet', 'b.parquet']), {
        schema: { id: 'long', customer: new Utf8(), amount: { type: 'decimal(10, 2)', nullable: false }, region: { type: new Int64() } },
        watermark: { column: 'ts', delay: '10 minutes' },
        comment: 'raw orders',
      })
      .source('changes', kafka({ topic: 'cdc', topics: ['cdc'], bootstrapServers: 'k:9092', valueFormat: 'debezium', startingOffsets: 'latest', options: { 'group.id': 'g' } }))
      .streamingTable('lake.orders', {
        sql: 'SELECT * FROM STREAM(orders)',
        partitionedBy: ['day(ts)'],
        properties: { 'format-version': '2' },
        comment: 'every order',
        expectations: { positive: 'amount > 0', known: { condition: 'customer IS NOT NULL', action: 'drop' } },
        trigger: { processingTime: '30 seconds' },
        outputMode: 'append',
      })
      .streamingTable('lake.customers', {
        sql: 'SELECT * FROM STREAM(changes)',
        applyChanges: { ...CDC, changeFormat: { kind: 'row-kind', column: 'op' }, storedAsScdType: 2, columnList: ['id', 'name'], ignoreNullUpdates: true },
      })
      .materializedView('lake.totals', { keys: ['customer'], schema: { customer: 'string' } })
      .flow('totals', { target: 'lake.totals', sql: 'SELECT customer FROM lake.orders', kind: 'once', outputMode: 'update', trigger: 'available-now' })
      .view('recent', { sql: 'SELECT * FROM lake.orders', comment: 'recent' })
      .temporaryView('latest', { sql: 'SELECT * FROM STREAM(orders)', watermark: { column: 'ts', delay: '1 minute' }, trigger: 'once' })
      .sink('out', { format: 'kafka', options: { topic: 'out' }, expectations: { has_id: { condition: 'id IS NOT NULL' } } })
      .build();
    expect(graph.datasets.map(({ kind, name }) => `${kind} ${name}`)).toEqual([
      'source orders',
      'source changes',
      'streaming-table lake.orders',
      'streaming-table lake.customers',
      'materialized-view lake.totals',
      'view recent',
      'temporary-view latest',
      'sink out',
    ]);
    const customers = graph.flows.find(({ name }) => name === 'lake.customers');
    expect(customers?.kind === 'apply-changes' ? customers.changes.changeFormat : undefined).toEqual({ kind: 'row-kind', column: 'op' });
  });
});
