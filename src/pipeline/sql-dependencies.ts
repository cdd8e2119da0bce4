/**
 * What a flow's SQL reads, from DuckDB's own parse tree (`json_serialize_sql`), so that the
 * dependencies are exactly what DuckDB will bind: base tables (`orders`, `lake.orders`,
 * `"Lake"."Orders"`) and `STREAM(x)` reads, which DuckDB parses as a table function `stream` over
 * a column reference. CTE names are not dependencies (scoped as SQL scopes them); table functions
 * such as read_parquet() are not datasets. Pure: the parse tree comes in as JSON.
 */
import type { FlowDependencies, FlowRead } from './ir/flow.js';

export type SqlAnalysis =
  | { readonly ok: true; readonly dependencies: FlowDependencies }
  | { readonly ok: false; readonly message: string; /** Character offset into the SQL, when known. */ readonly position?: number };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The parse tree of `SELECT json_serialize_sql(sql)` → reads and stateful aggregation.
 * `aggregateFunctions` holds lower-case names of DuckDB aggregate functions (`count_star`, `sum`, …).
 */
export function analyseSerializedSql(serialized: unknown, aggregateFunctions: ReadonlySet<string>): SqlAnalysis {
  if (!isObject(serialized)) return { ok: false, message: 'the SQL parser returned nothing' };
  if (serialized['error'] === true) {
    const position = Number(serialized['position']);
    return { ok: false, message: String(serialized['error_message'] ?? 'cannot parse the SQL'), ...(Number.isFinite(position) ? { position } : {}) };
  }
  const statements = Array.isArray(serialized['statements']) ? serialized['statements'] : [];
  if (statements.length !== 1) return { ok: false, message: `a flow is one SELECT query; found ${statements.length} statements` };
  const walker = new Walker(aggregateFunctions);
  walker.visitStatement(statements[0]);
  if (walker.misuse !== undefined) return { ok: false, ...walker.misuse };
  return { ok: true, dependencies: { reads: walker.reads, aggregatesStream: walker.aggregatesStream } };
}

class Walker {
  readonly reads: FlowRead[] = [];
  aggregatesStream = false;
  /** Spark's `FROM STREAM x`, which DuckDB reads as a table named STREAM aliased x. */
  misuse: { message: string; position?: number } | undefined;
  /** CTE names in scope, innermost last; each maps to whether its body reads a stream. */
  private readonly scopes: Map<string, boolean>[] = [];

  constructor(private readonly aggregates: ReadonlySet<string>) {}

  visitStatement(statement: unknown): void {
    if (isObject(statement)) this.visitQueryNode(statement['node']);
  }

  /** Returns whether the node reads a stream anywhere in its FROM clauses. */
  private visitQueryNode(node: unknown): boolean {
    if (!isObject(node)) return false;
    const scope = new Map<string, boolean>();
    this.scopes.push(scope);
    try {
      const ctes = isObject(node['cte_map']) && Array.isArray(node['cte_map']['map']) ? node['cte_map']['map'] : [];
      for (const entry of ctes) {
        if (!isObject(entry) || !isObject(entry['value'])) continue;
        // A CTE body sees the CTEs before it (and itself when recursive), not the ones after.
        const name = String(entry['key']).toLowerCase();
        const query = entry['value']['query'];
        if (isObject(query) && isObject(query['node']) && query['node']['type'] === 'RECURSIVE_CTE_NODE') scope.set(name, false);
        scope.set(name, isObject(query) ? this.visitQueryNode(query['node']) : false);
      }
      return this.visitNodeBody(node);
    } finally {
      this.scopes.pop();
    }
  }

  private visitNodeBody(node: Json): boolean {
    switch (node['type']) {
      case 'SELECT_NODE': {
        const streams = this.visitTableRef(node['from_table']);
        for (const key of ['select_list', 'where_clause', 'group_expressions', 'having', 'qualify']) this.visitExpressions(node[key]);
        if (streams && this.isAggregate(node)) this.aggregatesStream = true;
        return streams;
      }
      case 'SET_OPERATION_NODE':
      case 'RECURSIVE_CTE_NODE': {
        const left = this.visitQueryNode(node['left']);
        const right = this.visitQueryNode(node['right']);
        return left || right;
      }
      default:
        // Other nodes (CTE_NODE, …): visit every child query generically.
        return this.visitAny(node);
    }
  }

  private isAggregate(node: Json): boolean {
    if (Array.isArray(node['group_expressions']) && node['group_expressions'].length > 0) return true;
    if (node['aggregate_handling'] !== undefined && node['aggregate_handling'] !== 'STANDARD_HANDLING') return true;
    return this.callsAggregate(node['select_list']) || this.callsAggregate(node['having']);
  }

  /** An aggregate call in these expressions, not looking into subqueries or window functions. */
  private callsAggregate(value: unknown): boolean {
    if (Array.isArray(value)) return value.some((item) => this.callsAggregate(item));
    if (!isObject(value) || value['class'] === 'SUBQUERY' || value['class'] === 'WINDOW') return false;
    if (value['class'] === 'FUNCTION' && this.aggregates.has(String(value['function_name']).toLowerCase())) return true;
    return Object.values(value).some((child) => this.callsAggregate(child));
  }

  /** Returns whether the table reference reads a stream. */
  private visitTableRef(ref: unknown): boolean {
    if (!isObject(ref)) return false;
    switch (ref['type']) {
      case 'BASE_TABLE':
        return this.baseTable(ref);
      case 'TABLE_FUNCTION':
        return this.tableFunction(ref);
      case 'SUBQUERY':
        return isObject(ref['subquery']) ? this.visitQueryNode(ref['subquery']['node']) : false;
      case 'JOIN': {
        const left = this.visitTableRef(ref['left']);
        const right = this.visitTableRef(ref['right']);
        this.visitExpressions(ref['condition']);
        return left || right;
      }
      default:
        return this.visitAny(ref);
    }
  }

  private baseTable(ref: Json): boolean {
    const parts = [ref['catalog_name'], ref['schema_name'], ref['table_name']].map((part) => String(part ?? '')).filter((part) => part !== '');
    const alias = String(ref['alias'] ?? '');
    if (parts.length === 1 && parts[0]?.toLowerCase() === 'stream' && alias !== '' && this.misuse === undefined) {
      const position = Number(ref['query_location']);
      this.misuse = { message: `write STREAM(${alias}) with parentheses: "STREAM ${alias}" reads a table named STREAM`, ...(Number.isFinite(position) ? { position } : {}) };
    }
    if (parts.length === 1) {
      const cte = this.cte(parts[0] ?? '');
      if (cte !== undefined) return cte;
    }
    this.reads.push({ name: parts.join('.'), streaming: false });
    return false;
  }

  private tableFunction(ref: Json): boolean {
    const call = ref['function'];
    if (!isObject(call)) return false;
    const name = String(call['function_name']).toLowerCase();
    const children = Array.isArray(call['children']) ? call['children'] : [];
    const argument = children[0];
    if (name === 'stream' && children.length === 1 && isObject(argument) && argument['class'] === 'COLUMN_REF' && Array.isArray(argument['column_names'])) {
      const parts = argument['column_names'].map(String);
      const cte = parts.length === 1 ? this.cte(parts[0] ?? '') : undefined;
      // STREAM(cte): the CTE's own reads carry the streaming; the CTE itself is no dataset.
      if (cte === undefined) this.reads.push({ name: parts.join('.'), streaming: true });
      return true;
    }
    this.visitExpressions(children);
    return false;
  }

  private cte(name: string): boolean | undefined {
    const key = name.toLowerCase();
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const found = this.scopes[i]?.get(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Expressions may hold subqueries (IN, EXISTS, scalar) that read datasets too. */
  private visitExpressions(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.visitExpressions(item);
      return;
    }
    if (!isObject(value)) return;
    if (value['class'] === 'SUBQUERY' && isObject(value['subquery'])) {
      this.visitQueryNode(value['subquery']['node']);
      this.visitExpressions(value['child']);
      return;
    }
    for (const child of Object.values(value)) this.visitExpressions(child);
  }

  /** Unknown node shapes: find query nodes and table refs wherever they are. */
  private visitAny(value: unknown): boolean {
    if (Array.isArray(value)) return value.map((item) => this.visitAny(item)).some(Boolean);
    if (!isObject(value)) return false;
    if (isObject(value['node']) && 'cte_map' in value['node']) return this.visitQueryNode(value['node']);
    if (value['type'] === 'BASE_TABLE' || value['type'] === 'TABLE_FUNCTION' || value['type'] === 'JOIN' || value['type'] === 'SUBQUERY') {
      return this.visitTableRef(value);
    }
    return Object.values(value).map((child) => this.visitAny(child)).some(Boolean);
  }
}
