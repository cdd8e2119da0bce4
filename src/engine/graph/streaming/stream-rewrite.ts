/**
 * A streaming flow's SQL with each `STREAM(name)` read replaced by the relation that holds the
 * rows of one micro-batch (or the buffered rows of a stateful operator). Found lexically, as
 * src/sdp/stream-reads.ts finds them: string literals, quoted identifiers and comments are skipped.
 */
import { codeIndex } from '../../../pipeline/sql-lexical.js';
import { nameKey } from '../../../pipeline/ir/graph.js';

const STREAM_READ = /\bSTREAM\s*\(\s*([^()]+?)\s*\)/gi;

/** `"Lake".orders` → `lake.orders`: the key a FlowRead name is compared by. */
export function streamReadKey(written: string): string {
  return nameKey(
    written
      .split('.')
      .map((part) => part.trim().replace(/^"(.*)"$/, '$1').replaceAll('""', '"'))
      .join('.'),
  );
}

/** `relationFor` gets the name as written inside STREAM(); it returns SQL for a FROM clause. */
export function rewriteStreamReads(sql: string, relationFor: (name: string) => string): string {
  const isCode = codeIndex(sql);
  return sql.replace(STREAM_READ, (match: string, name: string, offset: number) => (isCode(offset) ? relationFor(name) : match));
}
