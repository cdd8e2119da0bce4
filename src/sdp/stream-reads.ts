/**
 * `STREAM(name)` reads in a flow's SQL text, found lexically (string literals and comments
 * skipped) so that a watermark can be attached to the one streaming input it belongs to, with
 * Spark's `STREAM(src) WATERMARK col DELAY OF INTERVAL n unit` clause.
 */
import type { Watermark } from '../pipeline/ir/streaming.js';
import { codeIndex } from '../pipeline/sql-lexical.js';

const STREAM_READ = /\bSTREAM\s*\(\s*[^()]+?\s*\)/gi;

function streamReads(sql: string): RegExpMatchArray[] {
  const isCode = codeIndex(sql);
  return [...sql.matchAll(STREAM_READ)].filter((match) => isCode(match.index ?? 0));
}

export function streamReadCount(sql: string): number {
  return streamReads(sql).length;
}

/** `INTERVAL 10 MINUTES` from a duration's text ("10 minutes"). */
export function sqlInterval(text: string): string {
  return `INTERVAL ${text.toUpperCase()}`;
}

/** The SQL with the watermark clause after its only STREAM() read; undefined unless there is exactly one. */
export function withWatermarkClause(sql: string, watermark: Watermark): string | undefined {
  const reads = streamReads(sql);
  const read = reads[0];
  if (reads.length !== 1 || read === undefined) return undefined;
  const end = (read.index ?? 0) + read[0].length;
  return `${sql.slice(0, end)} WATERMARK ${watermark.column} DELAY OF ${sqlInterval(watermark.delay.text)}${sql.slice(end)}`;
}
