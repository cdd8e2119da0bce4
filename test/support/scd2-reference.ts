/**
 * The reference SCD2 history of Debezium-style change events (op, before, after, source.lsn), as
 * one DuckDB statement over `events` (a relation): a version opens at a create, after a delete or
 * at a change of name, email or tier; it ends at the key's next event.
 */
export const scd2HistoryOf = (events: string): string => `
  WITH events AS (
    SELECT unnest(CASE WHEN op = 'd' THEN before ELSE after END), source.lsn AS seq, CASE WHEN op = 'd' THEN 'delete' ELSE 'upsert' END AS kind
    FROM ${events}),
  flagged AS (
    SELECT *, CASE WHEN kind = 'upsert' AND (lag(kind) OVER w IS NULL OR lag(kind) OVER w = 'delete' OR name IS DISTINCT FROM lag(name) OVER w
                   OR email IS DISTINCT FROM lag(email) OVER w OR tier IS DISTINCT FROM lag(tier) OVER w) THEN 1 ELSE 0 END AS opens,
           lead(seq) OVER w AS next_seq
    FROM events WINDOW w AS (PARTITION BY id ORDER BY seq)),
  numbered AS (SELECT *, sum(opens) OVER (PARTITION BY id ORDER BY seq ROWS UNBOUNDED PRECEDING) AS version FROM flagged)
  SELECT id, arg_max_null(name, seq) AS name, arg_max_null(email, seq) AS email, arg_max_null(tier, seq) AS tier,
         min(seq) AS __START_AT, arg_max_null(next_seq, seq) AS __END_AT
  FROM numbered WHERE kind = 'upsert' GROUP BY id, version ORDER BY id, __START_AT`;
