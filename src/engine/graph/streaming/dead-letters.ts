/**
 * The dead-letter table: one row per record that could not be decoded or did not go through the
 * flow, with its coordinates, raw key and value bytes, a stable code and the reason. Rows are
 * staged like batches (one JSON file, DuckDB's reader) and written as ordinary data files.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonRecord } from './batch-staging.js';
import type { DeadLetterCandidate } from '../../../../connectors/streaming-source.js';
import { quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';
import { primitive, type Schema } from '../../../iceberg/types.js';

export const DEAD_LETTER_SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'topic', required: false, type: primitive('string') },
    { id: 2, name: 'partition', required: false, type: primitive('int') },
    { id: 3, name: 'offset', required: false, type: primitive('long') },
    { id: 4, name: 'key', required: false, type: primitive('binary') },
    { id: 5, name: 'value', required: false, type: primitive('binary') },
    { id: 6, name: 'code', required: false, type: primitive('string') },
    { id: 7, name: 'reason', required: false, type: primitive('string') },
    { id: 8, name: 'record_timestamp', required: false, type: primitive('timestamp') },
    { id: 9, name: 'failed_at', required: false, type: primitive('timestamptz') },
  ],
};

/** Code of a record the flow (SQL, casts onto the table) failed on. */
export const FLOW_FAILED = 'FLOW_FAILED';

/** A record the flow failed on (or refused before running), and why. */
export interface FlowRecordFailure {
  readonly record: JsonRecord;
  readonly reason: string;
}

export function flowFailureToDeadLetter(failure: FlowRecordFailure): DeadLetterCandidate {
  const { record } = failure;
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestampMs: record.timestampMs,
    key: record.key,
    // The fetched bytes when the source kept them; otherwise the decoded value re-encoded.
    value: record.raw !== undefined ? record.raw : Buffer.from(JSON.stringify(record.value), 'utf8'),
    headers: record.headers,
    code: FLOW_FAILED,
    reason: failure.reason,
  };
}

let fileCounter = 0;

/** Stages dead letters into a DuckDB table whose columns are DEAD_LETTER_SCHEMA's, in order. */
export async function stageDeadLetters(session: DuckDbSession, letters: readonly DeadLetterCandidate[], table: string, tempDir: string): Promise<void> {
  const file = join(tempDir, `dead-letters-${process.pid}-${++fileCounter}.ndjson`);
  const lines = letters.map((d) =>
    JSON.stringify({
      topic: d.topic,
      partition: d.partition,
      offset: d.offset.toString(),
      key: d.key?.toString('base64') ?? null,
      value: d.value?.toString('base64') ?? null,
      code: d.code,
      reason: d.reason,
      ts: d.timestampMs,
    }),
  );
  await writeFile(file, lines.join('\n'));
  try {
    const columns = `{'topic': 'VARCHAR', 'partition': 'INTEGER', 'offset': 'VARCHAR', 'key': 'VARCHAR', 'value': 'VARCHAR', 'code': 'VARCHAR', 'reason': 'VARCHAR', 'ts': 'BIGINT'}`;
    await session.run(
      `CREATE OR REPLACE TABLE ${table} AS SELECT topic, "partition", CAST("offset" AS BIGINT) AS "offset", from_base64(key) AS key, from_base64(value) AS value, code, reason, epoch_ms(ts) AS record_timestamp, CAST(now() AS TIMESTAMPTZ) AS failed_at FROM read_json(${quoteLiteral(file)}, format = 'newline_delimited', columns = ${columns})`,
    );
  } finally {
    await rm(file, { force: true });
  }
}
