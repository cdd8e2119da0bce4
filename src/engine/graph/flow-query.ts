/** A flow's SQL ready to embed in another statement (no trailing semicolons or comments). */
import type { Flow } from '../../pipeline/ir/flow.js';
import { queryBody } from '../../pipeline/query-body.js';

export function flowQuery(flow: Flow): string {
  return queryBody(flow.query.text);
}
