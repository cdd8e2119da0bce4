/** A flow's SQL ready to embed in another statement (no trailing semicolon). */
import type { Flow } from '../../pipeline/ir/flow.js';

export function flowQuery(flow: Flow): string {
  return flow.query.text.trim().replace(/;+\s*$/, '');
}
