/** Which runner a flow goes to: any STREAM() read, or applying changes, makes it incremental. */
import type { Flow } from '../../pipeline/ir/flow.js';

export function isStreamingFlow(flow: Flow): boolean {
  return flow.kind === 'apply-changes' || (flow.dependencies?.reads ?? []).some((read) => read.streaming);
}
