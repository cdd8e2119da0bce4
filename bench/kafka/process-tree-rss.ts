/**
 * Samples the resident memory of a process and all its descendants (read from /proc), keeping the
 * largest sum seen: the peak RSS of a process tree such as python → spark-submit → java.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface RssSampler {
  /** Largest summed VmRSS seen so far, in MiB. */
  peakMiB(): number;
  stop(): void;
}

export function sampleProcessTreeRss(rootPid: number, intervalMs = 100): RssSampler {
  let peakKiB = 0;
  const sample = (): void => {
    const total = treePids(rootPid).reduce((sum, pid) => sum + statusField(pid, 'VmRSS'), 0);
    peakKiB = Math.max(peakKiB, total);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    peakMiB: () => peakKiB / 1024,
    stop: () => {
      sample();
      clearInterval(timer);
    },
  };
}

function treePids(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = statusField(Number(entry), 'PPid');
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const pids: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return pids;
}

/** A numeric field of /proc/PID/status (kB for memory fields); 0 once the process is gone. */
function statusField(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(match?.[1] ?? 0);
  } catch {
    return 0;
  }
}
