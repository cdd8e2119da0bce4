/**
 * What a streaming aggregation's SQL looks like to the engine, read from DuckDB's own parse tree
 * (`json_serialize_sql`): the tumbling window (`time_bucket(INTERVAL '10 minutes', col)` in the
 * top-level SELECT or GROUP BY) and which output columns are group keys (the upsert key of update
 * mode: every selected expression that calls no aggregate function).
 */
import { InvalidInputError } from '../../../errors.js';
import { duckDbSqlParser } from '../../../duckdb/sql-parser.js';
import { quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';
import { isParseNode, type ParseNode } from './parse-tree.js';

export interface TumblingWindow {
  /** The window length in microseconds. */
  readonly sizeMicros: bigint;
  /** The interval as DuckDB prints it ("00:10:00"), for messages and the window spec. */
  readonly sizeText: string;
  /** The event-time column the window is computed from. */
  readonly column: string;
}

export interface AggregationShape {
  readonly window?: TumblingWindow;
  /** Positions (0-based) in the output of the columns that are group keys; undefined with SELECT *. */
  readonly keyPositions?: readonly number[];
}

/** time_bucket's default origin for sub-month widths, 2000-01-03 00:00:00 UTC, in epoch microseconds. */
const TIME_BUCKET_ORIGIN_US = 946_857_600_000_000n;

export async function aggregationShape(session: DuckDbSession, flowName: string, sql: string): Promise<AggregationShape> {
  const parser = duckDbSqlParser(session);
  const tree = await parser.serialize(sql);
  const statements = isParseNode(tree) && Array.isArray(tree['statements']) ? tree['statements'] : [];
  const node = isParseNode(statements[0]) ? statements[0]['node'] : undefined;
  if (!isParseNode(node) || node['type'] !== 'SELECT_NODE') {
    throw refused(flowName, 'a streaming aggregation must be one SELECT … FROM STREAM(…) GROUP BY …');
  }
  const aggregates = await parser.aggregateFunctions();
  const selectList = Array.isArray(node['select_list']) ? node['select_list'] : [];
  const buckets = [...findCalls(selectList, 'time_bucket'), ...findCalls(node['group_expressions'], 'time_bucket')];
  const window = buckets.length === 0 ? undefined : await tumblingWindow(session, flowName, buckets);
  const star = selectList.some((item) => isParseNode(item) && (item['class'] === 'STAR' || item['type'] === 'STAR'));
  const keyPositions = star ? undefined : selectList.flatMap((item, index) => (callsAggregate(item, aggregates) ? [] : [index]));
  return { ...(window === undefined ? {} : { window }), ...(keyPositions === undefined ? {} : { keyPositions }) };
}

async function tumblingWindow(session: DuckDbSession, flowName: string, calls: readonly ParseNode[]): Promise<TumblingWindow> {
  const windows: TumblingWindow[] = [];
  for (const call of calls) {
    const children = Array.isArray(call['children']) ? call['children'] : [];
    const column = children[1];
    if (children.length !== 2 || !isParseNode(column) || column['class'] !== 'COLUMN_REF' || !Array.isArray(column['column_names'])) {
      throw refused(flowName, 'a window is time_bucket(INTERVAL …, column) over a column of the streamed input, without origin or offset');
    }
    const interval = await expressionText(session, children[0]);
    const [row] = await session.queryJson(
      `SELECT epoch_us(TIMESTAMP '1970-01-01' + (${interval}))::VARCHAR AS jan, epoch_us(TIMESTAMP '1970-02-01' + (${interval})) - epoch_us(TIMESTAMP '1970-02-01') AS feb,
              (${interval})::VARCHAR AS text`,
    );
    const size = BigInt(String(row?.['jan']));
    if (String(row?.['feb']) !== String(size) || size <= 0n) {
      throw refused(flowName, `the window width ${String(row?.['text'])} must be a positive fixed length (no months or years)`);
    }
    if (TIME_BUCKET_ORIGIN_US % size !== 0n) {
      throw refused(flowName, `the window width ${String(row?.['text'])} must divide a day, so time_bucket's windows start where the engine's do`);
    }
    windows.push({ sizeMicros: size, sizeText: String(row?.['text']), column: String(column['column_names'].at(-1)) });
  }
  const [first] = windows;
  if (first === undefined || windows.some((w) => w.sizeMicros !== first.sizeMicros || w.column.toLowerCase() !== first.column.toLowerCase())) {
    throw refused(flowName, 'a streaming aggregation has one window: every time_bucket() in it must have the same width and column');
  }
  return first;
}

/** An expression of the parse tree back as SQL text (json_deserialize_sql of `SELECT <expr>`). */
async function expressionText(session: DuckDbSession, expression: unknown): Promise<string> {
  const [template] = await session.queryJson(`SELECT json_serialize_sql('SELECT 1') AS tree`);
  const tree = JSON.parse(String(template?.['tree'])) as { statements: { node: ParseNode }[] };
  const node = tree.statements[0]?.node;
  if (node === undefined) throw new InvalidInputError('the SQL parser returned no statement');
  node['select_list'] = [{ ...(expression as ParseNode), alias: '' }];
  // Unknown query locations are the largest uint64, which a JSON number cannot carry back exactly.
  const text = JSON.stringify(tree, (key, value: unknown) => (key === 'query_location' ? undefined : value));
  const [row] = await session.queryJson(`SELECT json_deserialize_sql(${quoteLiteral(text)}) AS sql`);
  return String(row?.['sql']).replace(/^\s*SELECT\s+/i, '');
}

/** Calls of `name` in these expressions, not looking into subqueries. */
function findCalls(value: unknown, name: string): ParseNode[] {
  if (Array.isArray(value)) return value.flatMap((item) => findCalls(item, name));
  if (!isParseNode(value) || value['class'] === 'SUBQUERY') return [];
  const own = value['class'] === 'FUNCTION' && String(value['function_name']).toLowerCase() === name ? [value] : [];
  return [...own, ...Object.values(value).flatMap((child) => findCalls(child, name))];
}

function callsAggregate(value: unknown, aggregates: ReadonlySet<string>): boolean {
  if (Array.isArray(value)) return value.some((item) => callsAggregate(item, aggregates));
  if (!isParseNode(value) || value['class'] === 'SUBQUERY' || value['class'] === 'WINDOW') return false;
  if (value['class'] === 'FUNCTION' && aggregates.has(String(value['function_name']).toLowerCase())) return true;
  return Object.values(value).some((child) => callsAggregate(child, aggregates));
}

function refused(flowName: string, message: string): InvalidInputError {
  return new InvalidInputError(`flow ${flowName}: ${message}`, { context: { flow: flowName } });
}
