/**
 * bench/startup: how long a user waits for the built CLI, whole process from spawn to exit, beside
 * `node -e ''` (Node's own start, the floor nothing can go under). Times `thund --help`,
 * `thund validate` of the README quickstart pipeline, a first quickstart `thund run` (the embedded
 * default: a fresh `./warehouse` in a temp working directory) and a second `thund run` that finds
 * the table up to date. Prints the median (min, max) of each and its goal: 0.2 s for --help and
 * validate, 0.5 s for the up-to-date run (the first run writes data; it has no goal). On Linux it
 * also prints each command's CPU time (user + system, median), which a machine shared with
 * other work disturbs less than wall time. Builds nothing: run `npm run build` first.
 *
 *   npm run bench:startup [-- --runs 5]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const root = resolve(import.meta.dirname, '../..');
const CLI = join(root, 'dist/bin/thund.js');
const QUICKSTART = join(root, 'examples/quickstart/pipeline.yaml');
if (!existsSync(CLI)) {
  console.error(`bench:startup times the built CLI, but ${CLI} is missing: run npm run build first`);
  process.exit(2);
}

/**
 * CPU seconds (user + system) of this process's waited-for children so far, from /proc/self/stat
 * (cutime, cstime in USER_HZ ticks, 100 a second on Linux); undefined elsewhere.
 */
function childrenCpuSeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

interface Sample {
  readonly seconds: number;
  readonly cpu: number | undefined;
}

/** Wall seconds from spawn to exit of `node args…` in `cwd`, and its CPU seconds; a non-zero exit fails the bench with its output. */
function timeProcess(args: readonly string[], cwd: string): Sample {
  const cpuBefore = childrenCpuSeconds();
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = childrenCpuSeconds();
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} exited ${child.status}:\n${child.stdout}${child.stderr}`);
  return { seconds, cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

interface Figure {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly cpu: number | undefined;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

function figure(samples: readonly Sample[]): Figure {
  const seconds = samples.map((sample) => sample.seconds);
  const cpu = samples.flatMap((sample) => (sample.cpu === undefined ? [] : [sample.cpu]));
  return { median: median(seconds), min: Math.min(...seconds), max: Math.max(...seconds), cpu: cpu.length === samples.length ? median(cpu) : undefined };
}

const work = mkdtempSync(join(tmpdir(), 'thund-bench-startup-'));
const samples = { floor: [] as Sample[], help: [] as Sample[], validate: [] as Sample[], first: [] as Sample[], upToDate: [] as Sample[] };
try {
  // Rounds alternate the commands, so none of them gets the machine at a quieter moment than the others.
  for (let round = 0; round < runs; round += 1) {
    samples.floor.push(timeProcess(['-e', ''], work));
    samples.help.push(timeProcess([CLI, '--help'], work));
    samples.validate.push(timeProcess([CLI, 'validate', QUICKSTART], work));
    // The README's quickstart: `thund run examples/quickstart/pipeline.yaml`, creating ./warehouse where it runs.
    const cwd = mkdtempSync(join(work, `round-${round}-`));
    samples.first.push(timeProcess([CLI, 'run', QUICKSTART], cwd));
    samples.upToDate.push(timeProcess([CLI, 'run', QUICKSTART], cwd));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const floor = figure(samples.floor);
const s = (seconds: number): string => `${seconds.toFixed(3)} s`;
const cpu = (f: Figure): string => (f.cpu === undefined ? '' : `  cpu ${s(f.cpu)}`);
function line(label: string, f: Figure, goal: number | undefined): string {
  const verdict = goal === undefined ? '(no goal)' : `goal <= ${goal.toFixed(1)} s ${f.median <= goal ? 'met' : 'NOT met'}`;
  return `${label.padEnd(30)} ${s(f.median)}  (min ${s(f.min)}, max ${s(f.max)})${cpu(f)}  ${verdict}; ${s(f.median - floor.median)} above the floor`;
}
console.log(`whole processes, median of ${runs} (alternating rounds)`);
console.log(`${"node -e '' (the floor)".padEnd(30)} ${s(floor.median)}  (min ${s(floor.min)}, max ${s(floor.max)})${cpu(floor)}`);
console.log(line('thund --help', figure(samples.help), 0.2));
console.log(line('thund validate (quickstart)', figure(samples.validate), 0.2));
console.log(line('thund run, first (quickstart)', figure(samples.first), undefined));
console.log(line('thund run, up to date', figure(samples.upToDate), 0.5));
