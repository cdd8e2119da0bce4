/** Deterministic streamed inputs shared by the streaming tests: words with event times that run back and forth. */

/** File `k` of a word stream: 40 rows around minute 10·k, reaching up to 10 minutes behind the newest row before them. */
export function wordFile(k: number, rows = 40): string {
  return `SELECT ['alpha', 'beta', 'gamma', 'delta'][(i * 7 + ${k}) % 4 + 1] AS word,
                 TIMESTAMP '2026-01-01 00:00:00' + to_seconds(${k * 600} + (i * 97) % 1200 - 800) AS ts
          FROM range(0, ${rows}) t(i)`;
}

/**
 * Spark's late-data rule over all files in file order (one file = one micro-batch), as CTEs:
 * `windowed` has every row with its window start `ws` and the watermark before its batch;
 * `accepted` the rows that were not late. `{files}` is the read_parquet call with filename = true.
 */
export function acceptedRowsSql(files: string, window: string, delay: string): string {
  return `
  WITH input AS (SELECT word, ts, filename AS f FROM ${files}),
  marks AS (SELECT f, max(max(ts)) OVER (ORDER BY f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - INTERVAL ${delay} AS before FROM input GROUP BY f),
  windowed AS (SELECT i.*, time_bucket(INTERVAL '${window}', ts) AS ws, m.before FROM input i JOIN marks m USING (f)),
  accepted AS (SELECT * FROM windowed WHERE before IS NULL OR ws + INTERVAL '${window}' > before)`;
}
