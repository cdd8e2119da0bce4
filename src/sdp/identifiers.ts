/** Names and literals as Spark SQL and Python source need them. */
import type { TableIdentifierParts } from '../pipeline/ir/dataset.js';

/** `` `name` ``, with backticks doubled (Spark SQL's quoting). */
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** `` `catalog`.`ns`.`table` ``: tables are always written catalog-qualified. */
export function qualifiedTableName(catalog: string, identifier: TableIdentifierParts): string {
  return [catalog, ...identifier.namespace, identifier.name].map(quoteIdentifier).join('.');
}

/** The same name unquoted, as SDP reports it in its event lines (`catalog.ns.table`). */
export function plainTableName(catalog: string, identifier: TableIdentifierParts): string {
  return [catalog, ...identifier.namespace, identifier.name].join('.');
}

/** A Spark SQL string literal ('…' with backslash escapes). */
export function sqlString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A Python string literal (JSON's escaping is valid Python). */
export function pythonString(value: string): string {
  return JSON.stringify(value);
}

/** A Python dict literal of string keys and values, in key order. */
export function pythonStringDict(entries: Readonly<Record<string, string>>): string {
  const keys = Object.keys(entries).sort();
  return `{${keys.map((key) => `${pythonString(key)}: ${pythonString(entries[key] ?? '')}`).join(', ')}}`;
}
