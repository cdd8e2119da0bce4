/**
 * Samples the resident memory of a process and all its descendants (read from /proc), keeping the
 * largest sum seen: the peak RSS of a process tree such as python → spark-submit → java. Also the
 * CPU time (user + system, all threads) the tree's live processes have used, and that of the root
 * process's main thread (for node, the JavaScript thread), as of the last sample.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface RssSampler {
  /** Largest summed VmRSS seen so far, in MiB. */
  peakMiB(): number;
  /** CPU seconds of the tree's processes at the last sample (a process that ended before it is not counted). */
  cpuSeconds(): number;
  /** CPU seconds of the root process's main thread at the last sample. */
  mainThreadCpuSeconds(): number;
  /** CPU seconds of the root process's threads by `name:id`, as of the sample each was last seen in. */
  threadCpuSeconds(): Map<string, number>;
  stop(): void;
}

export function sampleProcessTreeRss(rootPid: number, intervalMs = 100): RssSampler {
  let peakKiB = 0;
  let cpu = 0;
  let mainCpu = 0;
  const byThread = new Map<string, { name: string; seconds: number }>();
  const sample = (): void => {
    const pids = treePids(rootPid);
    const total = pids.reduce((sum, pid) => sum + statusField(pid, 'VmRSS'), 0);
    peakKiB = Math.max(peakKiB, total);
    // Once the root has exited the tree reads as empty: keep the last live figure.
    const used = pids.reduce((sum, pid) => sum + cpuTicks(pid), 0) / 100;
    if (used > 0) cpu = used;
    const main = cpuTicks(rootPid, `/task/${rootPid}`) / 100;
    if (main > 0) mainCpu = main;
    for (const [tid, thread] of threadsOf(rootPid)) if (thread.seconds > 0 || !byThread.has(tid)) byThread.set(tid, thread);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    peakMiB: () => peakKiB / 1024,
    cpuSeconds: () => cpu,
    mainThreadCpuSeconds: () => mainCpu,
    threadCpuSeconds: () => {
      return new Map([...byThread].map(([tid, { name, seconds }]) => [`${name}:${tid}`, seconds]));
    },
    stop: () => {
      sample();
      clearInterval(timer);
    },
  };
}

/**
 * Runs `file` with `args` (one hour at most) while sampling its process tree; resolves with its
 * stdout, rejects with the last 30 lines of its stderr when it fails (named by its first argument,
 * the script).
 */
export function execSampled(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; sampler: RssSampler }> {
  let sampler: RssSampler | undefined;
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { maxBuffer: 64 * 1024 * 1024, timeout: 3_600_000, env }, (error, out, err) => {
      sampler?.stop();
      if (error !== null) reject(new Error(`${basename(args[0] ?? file)} failed: ${error.message}\n${err.split('\n').slice(-30).join('\n')}`));
      else resolve({ stdout: out, sampler: sampler as RssSampler });
    });
    if (child.pid !== undefined) sampler = sampleProcessTreeRss(child.pid);
  });
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

/** The process's live threads by id: name and CPU seconds. */
function threadsOf(pid: number): Map<string, { name: string; seconds: number }> {
  const threads = new Map<string, { name: string; seconds: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        threads.set(tid, { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), seconds: cpuTicks(pid, `/task/${tid}`) / 100 });
      } catch {
        // the thread ended
      }
    }
  } catch {
    // the process ended
  }
  return threads;
}

/** utime + stime of /proc/PID[/task/TID]/stat in clock ticks (100 per second); 0 once the process is gone. */
function cpuTicks(pid: number, task = ''): number {
  try {
    const fields = readFileSync(`/proc/${pid}${task}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
