/**
 * Nodes of DuckDB's statement tree (`json_serialize_sql`) as the streaming planner walks them:
 * an object node, and the STREAM() call that names a streamed input.
 */
export type ParseNode = Record<string, unknown>;

export const isParseNode = (value: unknown): value is ParseNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A call of STREAM(…), whose argument names an input rather than a column. */
export const isStreamCall = (node: ParseNode): boolean => node['class'] === 'FUNCTION' && String(node['function_name']).toLowerCase() === 'stream';
