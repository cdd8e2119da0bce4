/**
 * The few DuckDB forms a flow's SQL may use that Spark spells differently. Tumbling windows are
 * written with DuckDB's `time_bucket(INTERVAL '10 minutes', ts)` (DuckDB cannot parse Spark's
 * `window(…)`, a keyword there). Spark groups by `window(ts, '10 minutes')` — grouping by its
 * `.start` loses the watermark and append mode fails (measured) — and selects
 * `window(ts, '10 minutes').start`. Everything else passes through as written.
 */
import { codeIndex } from '../pipeline/sql-lexical.js';

const TIME_BUCKET = /\btime_bucket\s*\(\s*INTERVAL\s*'([^']+)'\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)/gi;
const CLAUSE = /\b(SELECT|FROM|WHERE|GROUP\s+BY|HAVING|ORDER\s+BY)\b/gi;

/** Whether the clause the index is in is GROUP BY (the last clause keyword before it in code). */
function inGroupBy(sql: string, index: number, isCode: (i: number) => boolean): boolean {
  let last = '';
  for (const match of sql.slice(0, index).matchAll(CLAUSE)) if (isCode(match.index)) last = match[1] ?? '';
  return /^GROUP\s+BY$/i.test(last);
}

export interface Translation {
  readonly sql: string;
  /** One line per rewritten form, for the report. */
  readonly rewrites: readonly string[];
}

/**
 * Whether the query selects a time_bucket(…) window but groups by none (GROUP BY ALL or by
 * position): Spark then groups by `window(…).start`, which carries no watermark, and refuses a
 * streaming aggregation in append mode (measured with 4.1.4).
 */
export function windowOutsideGroupBy(sql: string): boolean {
  const isCode = codeIndex(sql);
  const places = [...sql.matchAll(TIME_BUCKET)].filter((match) => isCode(match.index)).map((match) => inGroupBy(sql, match.index, isCode));
  return places.length > 0 && !places.includes(true);
}

export function toSparkDialect(sql: string): Translation {
  const isCode = codeIndex(sql);
  const rewrites = new Set<string>();
  const text = sql.replace(TIME_BUCKET, (match, width: string, column: string, offset: number) => {
    if (!isCode(offset)) return match;
    const window = `window(${column}, '${width}')`;
    const spark = inGroupBy(sql, offset, isCode) ? window : `${window}.start`;
    rewrites.add(`${match.replace(/\s+/g, ' ')} → ${spark}`);
    return spark;
  });
  return { sql: text, rewrites: [...rewrites] };
}
