/**
 * Table names in flow SQL made catalog-qualified: `lake.orders` → `` `cat`.`lake`.`orders` ``.
 * SDP resolves unqualified names in spark_catalog, and neither SET CATALOG in a definition file
 * nor spark.sql.defaultCatalog works with flows in Spark 4.1 (assertion failure at registration,
 * measured), so the lowering writes the catalog into every multi-part name a flow reads.
 * Single-part names are sources and views (temporary views in the run) and stay as written.
 */
import type { FlowRead } from '../pipeline/ir/flow.js';
import { quoteIdentifier } from './identifiers.js';
import { codeIndex, escapeRegExp } from '../pipeline/sql-lexical.js';

export function qualifyTableReads(sql: string, reads: readonly FlowRead[], catalog: string): string {
  let text = sql;
  const names = [...new Set(reads.map((read) => read.name))].filter((name) => name.split('.').length === 2);
  for (const name of names) {
    const parts = name.split('.');
    const pattern = new RegExp(`(?<![\\w.\`"])${parts.map(escapeRegExp).join('\\s*\\.\\s*')}(?![\\w\`"])`, 'gi');
    const isCode = codeIndex(text);
    const replacement = [catalog, ...parts].map(quoteIdentifier).join('.');
    text = text.replace(pattern, (match, offset: number) => (isCode(offset) ? replacement : match));
  }
  return text;
}
