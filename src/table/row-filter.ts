/**
 * A row predicate in DuckDB SQL, reduced to what file pruning can use: comparisons, IN lists
 * and null tests of top-level columns against constants, combined with AND / OR. DuckDB parses
 * the text (json_serialize_sql) and folds each constant to the column's type; anything else
 * becomes `unknown`, which prunes nothing. Pruning only ever drops files; the rows themselves are
 * always selected by DuckDB with the full predicate.
 */
import { InvalidInputError } from '../errors.js';
import { icebergToDuckDbType } from '../iceberg/duckdb-types.js';
import type { NestedField, PrimitiveType, Schema } from '../iceberg/types.js';
import { isPrimitive } from '../iceberg/types.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';

export type CompareOp = '=' | '<' | '<=' | '>' | '>=';

export type RowFilter =
  | { readonly kind: 'and' | 'or'; readonly children: readonly RowFilter[] }
  | { readonly kind: 'compare'; readonly fieldId: number; readonly type: PrimitiveType; readonly op: CompareOp; readonly value: unknown }
  | { readonly kind: 'in'; readonly fieldId: number; readonly type: PrimitiveType; readonly values: readonly unknown[] }
  | { readonly kind: 'is-null'; readonly fieldId: number }
  | { readonly kind: 'not-null'; readonly fieldId: number }
  | { readonly kind: 'unknown' };

export const MATCH_ANYTHING: RowFilter = { kind: 'unknown' };

type Node = Record<string, unknown> & { readonly class?: string; readonly type?: string };

const COMPARISONS: Readonly<Record<string, CompareOp>> = {
  COMPARE_EQUAL: '=',
  COMPARE_LESSTHAN: '<',
  COMPARE_LESSTHANOREQUALTO: '<=',
  COMPARE_GREATERTHAN: '>',
  COMPARE_GREATERTHANOREQUALTO: '>=',
};
const FLIPPED: Readonly<Record<CompareOp, CompareOp>> = { '=': '=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** Parses `predicateSql` (a WHERE condition over the table's columns); a typed error when it is not one. */
export async function parseRowFilter(session: DuckDbSession, schema: Schema, predicateSql: string): Promise<RowFilter> {
  const text = predicateSql.trim();
  if (text === '') throw new InvalidInputError('The row predicate is empty', { context: { predicate: predicateSql } });
  const rows = await session.queryJson(`SELECT json_serialize_sql(${quoteLiteral(`SELECT * FROM t WHERE ${text}`)}) AS j`);
  const parsed = JSON.parse(String(rows[0]?.['j'])) as { error?: boolean; error_message?: string; statements?: { node: Node }[] };
  const where = parsed.statements?.[0]?.node['where_clause'] as Node | undefined;
  if (parsed.error === true || parsed.statements?.length !== 1 || where === undefined || where === null) {
    throw new InvalidInputError(`The row predicate is not a SQL condition: ${parsed.error_message ?? predicateSql}`, {
      context: { predicate: predicateSql },
    });
  }
  const folder = new ConstantFolder(session, parsed as unknown as Node);
  return reduce(where, schema, folder);
}

async function reduce(node: Node, schema: Schema, folder: ConstantFolder): Promise<RowFilter> {
  if (node.class === 'CONJUNCTION' && (node.type === 'CONJUNCTION_AND' || node.type === 'CONJUNCTION_OR')) {
    const children = await Promise.all((node['children'] as Node[]).map((child) => reduce(child, schema, folder)));
    return { kind: node.type === 'CONJUNCTION_AND' ? 'and' : 'or', children };
  }
  if (node.class === 'COMPARISON' && node.type !== undefined && node.type in COMPARISONS) {
    const op = COMPARISONS[node.type]!;
    const left = node['left'] as Node;
    const right = node['right'] as Node;
    const direct = columnOf(left, schema);
    const column = direct ?? columnOf(right, schema);
    if (column === undefined) return MATCH_ANYTHING;
    const value = await folder.fold(direct === undefined ? left : right, column.type);
    if (value === undefined) return MATCH_ANYTHING;
    return { kind: 'compare', fieldId: column.id, type: column.type, op: direct === undefined ? FLIPPED[op] : op, value };
  }
  if (node.class === 'BETWEEN') {
    const column = columnOf(node['input'] as Node, schema);
    if (column === undefined) return MATCH_ANYTHING;
    const lower = await folder.fold(node['lower'] as Node, column.type);
    const upper = await folder.fold(node['upper'] as Node, column.type);
    const terms: RowFilter[] = [];
    if (lower !== undefined) terms.push({ kind: 'compare', fieldId: column.id, type: column.type, op: '>=', value: lower });
    if (upper !== undefined) terms.push({ kind: 'compare', fieldId: column.id, type: column.type, op: '<=', value: upper });
    return { kind: 'and', children: terms };
  }
  if (node.class === 'OPERATOR') {
    const children = (node['children'] as Node[] | undefined) ?? [];
    const column = children[0] === undefined ? undefined : columnOf(children[0], schema);
    if (column === undefined) return MATCH_ANYTHING;
    if (node.type === 'OPERATOR_IS_NULL') return { kind: 'is-null', fieldId: column.id };
    if (node.type === 'OPERATOR_IS_NOT_NULL') return { kind: 'not-null', fieldId: column.id };
    if (node.type === 'COMPARE_IN') {
      const values: unknown[] = [];
      for (const child of children.slice(1)) {
        const value = await folder.fold(child, column.type);
        if (value === undefined) return MATCH_ANYTHING;
        values.push(value);
      }
      return { kind: 'in', fieldId: column.id, type: column.type, values };
    }
  }
  return MATCH_ANYTHING;
}

function columnOf(node: Node, schema: Schema): { id: number; type: PrimitiveType } | undefined {
  if (node.class !== 'COLUMN_REF') return undefined;
  const names = node['column_names'] as string[];
  if (names.length !== 1) return undefined;
  const name = names[0]!;
  const field: NestedField | undefined =
    schema.fields.find((f) => f.name === name) ?? schema.fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
  if (field === undefined || !isPrimitive(field.type)) return undefined;
  return { id: field.id, type: field.type };
}

/** Evaluates constant sub-expressions in DuckDB, cast to the column's type, into bounds.ts value forms. */
class ConstantFolder {
  constructor(
    private readonly session: DuckDbSession,
    private readonly statement: Node,
  ) {}

  async fold(node: Node, type: PrimitiveType): Promise<unknown> {
    const canonical = canonicalSql(type, 'v');
    if (canonical === undefined || mentionsColumns(node)) return undefined;
    const statements = this.statement['statements'] as { node: Node }[];
    const single = {
      ...this.statement,
      statements: [
        {
          ...statements[0],
          node: {
            ...statements[0]!.node,
            select_list: [{ ...node, alias: 'v' }],
            from_table: { type: 'EMPTY', alias: '', sample: null, query_location: 0 },
            where_clause: null,
          },
        },
      ],
    };
    const duckType = icebergToDuckDbType(type);
    try {
      const rows = await this.session.queryJson(
        `SELECT ${canonical} AS c, CAST(v AS ${duckType}) = v AS exact FROM json_execute_serialized_sql(${quoteLiteral(JSON.stringify(single))})`,
      );
      const row = rows[0];
      if (row === undefined || row['exact'] !== true || row['c'] === null) return undefined;
      return fromCanonical(type, row['c']);
    } catch {
      // Not foldable here (a cast DuckDB refuses, a function it cannot run alone): the full
      // predicate still runs over the rows, where DuckDB reports a real error.
      return undefined;
    }
  }
}

function mentionsColumns(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsColumns);
  if (node === null || typeof node !== 'object') return false;
  const cls = (node as Node).class;
  if (cls === 'COLUMN_REF' || cls === 'SUBQUERY' || cls === 'PARAMETER') return true;
  return Object.values(node).some(mentionsColumns);
}

/** SQL turning `expr` into text or numbers that map onto bounds.ts value forms; undefined: not prunable. */
export function canonicalSql(type: PrimitiveType, expr: string): string | undefined {
  switch (type.kind) {
    case 'boolean':
      return `CAST(${expr} AS BOOLEAN)`;
    case 'int':
      return `CAST(${expr} AS INTEGER)`;
    case 'long':
      return `CAST(CAST(${expr} AS BIGINT) AS VARCHAR)`;
    case 'date':
      return `CAST(date_diff('day', DATE '1970-01-01', CAST(${expr} AS DATE)) AS INTEGER)`;
    case 'timestamp':
      return `CAST(epoch_us(CAST(${expr} AS TIMESTAMP)) AS VARCHAR)`;
    case 'timestamptz':
      return `CAST(epoch_us(CAST(${expr} AS TIMESTAMPTZ)) AS VARCHAR)`;
    case 'timestamp_ns':
      return `CAST(epoch_ns(CAST(${expr} AS TIMESTAMP_NS)) AS VARCHAR)`;
    case 'decimal':
      return `CAST(CAST(${expr} AS DECIMAL(${type.precision}, ${type.scale})) AS VARCHAR)`;
    case 'string':
      return `CAST(${expr} AS VARCHAR)`;
    case 'uuid':
      return `CAST(CAST(${expr} AS UUID) AS VARCHAR)`;
    default:
      // float/double (NaN and -0.0 ordering), time, binary, fixed: no pruning.
      return undefined;
  }
}

export function fromCanonical(type: PrimitiveType, value: unknown): unknown {
  switch (type.kind) {
    case 'boolean':
    case 'int':
    case 'date':
    case 'string':
    case 'uuid':
      return value;
    case 'decimal': {
      const text = String(value);
      const negative = text.startsWith('-');
      const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
      const unscaled = BigInt(whole + fraction.padEnd(type.scale, '0'));
      return negative ? -unscaled : unscaled;
    }
    default:
      return BigInt(String(value));
  }
}
