/**
 * The lines `spark-pipelines` prints for its PipelineEvents (`<timestamp>: Flow x is RUNNING.`,
 * `Flow 'x' has FAILED.`, `Run is COMPLETED.`), read into flow and run state changes.
 */
export type FlowState = 'QUEUED' | 'PLANNING' | 'STARTING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'STOPPED' | 'SKIPPED' | 'EXCLUDED' | 'IDLE';

export type PipelineLine =
  | { readonly type: 'flow'; readonly flow: string; readonly state: FlowState }
  | { readonly type: 'run'; readonly state: string }
  | { readonly type: 'error'; readonly message: string }
  | { readonly type: 'other'; readonly text: string };

const FLOW = /Flow '?([^']+?)'? (?:is|has) ([A-Z]+)\.?\s*$/;
const RUN = /Run is ([A-Z_]+)\.?\s*$/;
const ERROR = /^(?:Error: |pyspark\.errors\.[\w.]+: |\[[A-Z_.]+\] )(.*)$/;

export function parsePipelineLine(line: string): PipelineLine {
  const flow = FLOW.exec(line);
  if (flow !== null) return { type: 'flow', flow: (flow[1] ?? '').replaceAll('`', ''), state: (flow[2] ?? '') as FlowState };
  const run = RUN.exec(line);
  if (run !== null) return { type: 'run', state: run[1] ?? '' };
  const error = ERROR.exec(line.trim());
  if (error !== null) return { type: 'error', message: line.trim() };
  return { type: 'other', text: line };
}

/**
 * Maps SDP's flow names back to the pipeline's: a dataset's own flow is reported under the
 * dataset's qualified name (`cat.ns.table`), a named flow under its name, possibly qualified.
 */
export function flowNameResolver(names: ReadonlyMap<string, string>): (reported: string) => string | undefined {
  return (reported) => {
    const key = reported.toLowerCase();
    const exact = names.get(key);
    if (exact !== undefined) return exact;
    for (const [sdpName, flow] of names) if (key.endsWith(`.${sdpName}`)) return flow;
    return undefined;
  };
}
