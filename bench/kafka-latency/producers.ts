/**
 * Runs `count` paced producers (paced-producer.ts) as child processes, each at rate/count records/s
 * with its own id range, and adds up what they report: records sent so far, and at the end the
 * total and the seconds the slowest one took. Their CPU is sampled too (it competes with the
 * service's on a shared machine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { sampleProcessTreeRss, type RssSampler } from '../kafka/process-tree-rss.js';

export interface ProducerOptions {
  readonly brokers: string;
  readonly topic: string;
  readonly partitions: number;
  readonly rate: number;
  readonly seconds: number;
  readonly count: number;
}

export interface ProducedTotals {
  readonly records: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
}

/** Far apart enough that no two producers' ids meet. */
const ID_RANGE = 1_000_000_000;

export class PacedProducers {
  private readonly sentBy: number[];
  private readonly children: ChildProcess[] = [];
  private readonly samplers: RssSampler[] = [];
  readonly done: Promise<ProducedTotals>;

  constructor(options: ProducerOptions) {
    this.sentBy = new Array<number>(options.count).fill(0);
    const runs: Array<Promise<{ sent: number; seconds: number }>> = [];
    for (let i = 0; i < options.count; i++) runs.push(this.runOne(i, options));
    this.done = Promise.all(runs).then((ends) => {
      for (const sampler of this.samplers) sampler.stop();
      return {
        records: ends.reduce((sum, end) => sum + end.sent, 0),
        seconds: Math.max(...ends.map((end) => end.seconds)),
        cpuSeconds: this.samplers.reduce((sum, sampler) => sum + sampler.cpuSeconds(), 0),
      };
    });
  }

  /** Records the producers have handed to Kafka so far (as of their last report, every 10 s). */
  sent(): number {
    return this.sentBy.reduce((sum, n) => sum + n, 0);
  }

  kill(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGTERM');
  }

  private runOne(index: number, options: ProducerOptions): Promise<{ sent: number; seconds: number }> {
    const args = ['--import', 'tsx', join(import.meta.dirname, 'paced-producer.ts'), '--brokers', options.brokers, '--topic', options.topic, '--partitions', String(options.partitions), '--rate', String(options.rate / options.count), '--seconds', String(options.seconds), '--first-id', String(index * ID_RANGE)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    if (child.pid !== undefined) this.samplers.push(sampleProcessTreeRss(child.pid, 1_000));
    let stderr = '';
    let pending = '';
    let last: { sent: number; seconds: number; done?: boolean } | undefined;
    child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        last = JSON.parse(line) as { sent: number; seconds: number; done?: boolean };
        this.sentBy[index] = last.sent;
      }
    });
    return new Promise((resolve, reject) => {
      child.on('exit', (code) => {
        if (code === 0 && last?.done === true) resolve({ sent: last.sent, seconds: last.seconds });
        else reject(new Error(`producer ${index} exited with ${code}: ${stderr.slice(-2000)}`));
      });
    });
  }
}
