/**
 * Change files for an SCD type 2 streaming flow (one file per batch) whose checkpoints build
 * chains of changes: file 0 creates every key; files 1-6 change a few keys each (a delete, and one
 * event older than the key's history, which rebuilds it); the last changes every key twice, more
 * rows than the state holds.
 */
export const SCD2_CHANGES_SPEC = `pipeline: history
sources:
  changes:
    format: parquet
    path: data/*.parquet
tables:
  lake.customers_history:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
flows:
  history:
    target: lake.customers_history
    apply_changes: { keys: [id], sequence_by: seq, apply_as_deletes: "op = 'd'", except_column_list: [op], stored_as_scd_type: 2 }
    sql: SELECT id, name, op, seq FROM STREAM(changes)
`;
export const SCD2_KEYS = 200;
export const SCD2_CHANGE_FILES = 8;

/** The SELECT giving file `k`'s change events. */
export function scd2ChangeFile(k: number): string {
  if (k === 0) return `SELECT i::BIGINT AS id, 'name-' || i AS name, 'u' AS op, (i * 100)::BIGINT AS seq FROM range(0, ${SCD2_KEYS}) t(i)`;
  if (k === SCD2_CHANGE_FILES - 1) {
    return `SELECT (i % ${SCD2_KEYS})::BIGINT AS id, 'last-' || i AS name, 'u' AS op, (50000 + i)::BIGINT AS seq FROM range(0, ${SCD2_KEYS * 2}) t(i)`;
  }
  return `SELECT ((i * 7 + ${k}) % ${SCD2_KEYS})::BIGINT AS id, 'name-${k}-' || i AS name, CASE WHEN i = 3 THEN 'd' ELSE 'u' END AS op,
                 CASE WHEN i = 5 THEN ((i * 7 + ${k}) % ${SCD2_KEYS}) * 100 + ${k} ELSE 30000 + ${k} * 10 + i END::BIGINT AS seq
          FROM range(0, 8) t(i)`;
}

export const SCD2_HISTORY_SQL = 'SELECT id, name, __START_AT, __END_AT FROM {t} ORDER BY id, __START_AT';
