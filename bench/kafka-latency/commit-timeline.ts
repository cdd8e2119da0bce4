/**
 * What the service's log says about its pace, for telling why latency is what it is: the
 * triggers (the 'batch committed' lines up to a 'flow committed' line), how many records and
 * batches each took, how long from one batch's commit to the next (read + stage + write +
 * commit of a batch), and how far apart the triggers' first commits are.
 */
export interface Trigger {
  /** Wall time of the trigger's first and last batch commit (ms). */
  readonly firstCommitMs: number;
  readonly lastCommitMs: number;
  readonly batches: number;
  readonly records: number;
  /** Time between consecutive batch commits of the trigger (ms). */
  readonly batchGapsMs: readonly number[];
}

export function commitTimeline(logs: ReadonlyArray<Record<string, unknown>>): Trigger[] {
  const triggers: Trigger[] = [];
  let commits: Array<{ at: number; rows: number }> = [];
  for (const line of logs) {
    if (line['msg'] === 'batch committed') commits.push({ at: Date.parse(String(line['time'])), rows: Number(line['rowsRead'] ?? 0) });
    else if (line['msg'] === 'flow committed' && commits.length > 0) {
      triggers.push({
        firstCommitMs: commits[0]?.at ?? 0,
        lastCommitMs: commits.at(-1)?.at ?? 0,
        batches: commits.length,
        records: commits.reduce((sum, c) => sum + c.rows, 0),
        batchGapsMs: commits.slice(1).map((c, i) => c.at - (commits[i]?.at ?? c.at)),
      });
      commits = [];
    }
  }
  return triggers;
}

/** One line per slice of the run (e.g. its quarters): triggers, records per trigger, the span of a trigger's commits, batch gaps. */
export function describeTimeline(triggers: readonly Trigger[], slices: number): string[] {
  const lines: string[] = [];
  const size = Math.max(1, Math.ceil(triggers.length / slices));
  for (let start = 0; start < triggers.length; start += size) {
    const part = triggers.slice(start, start + size);
    const gaps = part.flatMap((t) => t.batchGapsMs);
    const spans = part.map((t) => t.lastCommitMs - t.firstCommitMs);
    const starts = part.slice(1).map((t, i) => t.firstCommitMs - (part[i]?.firstCommitMs ?? t.firstCommitMs));
    lines.push(
      `triggers ${start + 1}-${start + part.length}: ${Math.round(mean(part.map((t) => t.records)))} records and ${mean(part.map((t) => t.batches)).toFixed(1)} batches per trigger; ` +
        `first to last commit ${seconds(mean(spans))} (max ${seconds(Math.max(...spans))}); batch to batch ${seconds(median(gaps))} median, ${seconds(Math.max(0, ...gaps))} max; ` +
        `trigger to trigger ${seconds(mean(starts))} mean, ${seconds(Math.max(0, ...starts))} max`,
    );
  }
  return lines;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const median = (xs: readonly number[]): number => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN);
const seconds = (ms: number): string => (Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
