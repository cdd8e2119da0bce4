/**
 * How much of a process's time its threads spent running on a CPU, and how much ready to run but
 * waiting for one (the scheduler's run queue), summed over its live threads (/proc/PID/task/
 * TID/schedstat, nanoseconds). A wait much longer than the run time means the machine, not the
 * process, set the pace.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface SchedTotals {
  readonly runSeconds: number;
  readonly waitSeconds: number;
}

export function schedTotals(pid: number): SchedTotals {
  let run = 0;
  let wait = 0;
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    // the process is gone
  }
  for (const task of tasks) {
    try {
      const [running, waiting] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').trim().split(' ').map(Number);
      run += running ?? 0;
      wait += waiting ?? 0;
    } catch {
      // the thread ended
    }
  }
  return { runSeconds: run / 1e9, waitSeconds: wait / 1e9 };
}
