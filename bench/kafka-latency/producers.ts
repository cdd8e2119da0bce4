/**
 * Runs `count` paced producers as child processes, each at rate/count records/s with its own id
 * range: PacedProducer.java on Kafka's Java client (the stack's jars), or paced-producer.ts on
 * kafkajs, which takes about four times the CPU per record. Adds up what they report: records
 * sent so far, and at the end the total and the seconds the slowest one took. Their CPU is
 * sampled too (it competes with the service's on a shared machine).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { kafkaClasspath } from '../../test/stack/kafka.js';
import { sampleProcessTreeRss, type RssSampler } from '../kafka/process-tree-rss.js';

export type ProducerKind = 'java' | 'kafkajs';

export interface ProducerOptions {
  readonly brokers: string;
  readonly topic: string;
  readonly partitions: number;
  readonly rate: number;
  readonly seconds: number;
  readonly count: number;
  readonly kind: ProducerKind;
}

export interface ProducedTotals {
  readonly records: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  /** Each producer's slowest 10 s between two of its reports, in records/s, summed over producers. */
  readonly slowestTenSecondsRate: number;
}

interface Command {
  readonly file: string;
  readonly args: readonly string[];
}

/** Far apart enough that no two producers' ids meet. */
const ID_RANGE = 1_000_000_000;

export class PacedProducers {
  private readonly sentBy: number[];
  private readonly samplers: RssSampler[] = [];
  readonly done: Promise<ProducedTotals>;

  private constructor(options: ProducerOptions, command: (index: number) => Command) {
    this.sentBy = new Array<number>(options.count).fill(0);
    const runs: Array<Promise<{ sent: number; seconds: number; slowestRate: number }>> = [];
    for (let i = 0; i < options.count; i++) runs.push(this.runOne(i, command(i)));
    this.done = Promise.all(runs).then((ends) => {
      for (const sampler of this.samplers) sampler.stop();
      return {
        records: ends.reduce((sum, end) => sum + end.sent, 0),
        seconds: Math.max(...ends.map((end) => end.seconds)),
        cpuSeconds: this.samplers.reduce((sum, sampler) => sum + sampler.cpuSeconds(), 0),
        slowestTenSecondsRate: ends.reduce((sum, end) => sum + end.slowestRate, 0),
      };
    });
  }

  static async start(options: ProducerOptions): Promise<PacedProducers> {
    const rate = String(options.rate / options.count);
    if (options.kind === 'kafkajs') {
      const script = join(import.meta.dirname, 'paced-producer.ts');
      return new PacedProducers(options, (i) => ({ file: process.execPath, args: ['--import', 'tsx', script, '--brokers', options.brokers, '--topic', options.topic, '--partitions', String(options.partitions), '--rate', rate, '--seconds', String(options.seconds), '--first-id', String(i * ID_RANGE)] }));
    }
    const classpath = (await kafkaClasspath()).filter((jar) => /\/(kafka-clients|slf4j-api)-[^/]*\.jar$/.test(jar)).join(':');
    const source = join(import.meta.dirname, 'PacedProducer.java');
    return new PacedProducers(options, (i) => ({ file: 'java', args: ['-XX:+UseSerialGC', '-Xmx256m', '-cp', classpath, source, options.brokers, options.topic, String(options.partitions), rate, String(options.seconds), String(i * ID_RANGE)] }));
  }

  /** Records the producers have handed to Kafka so far (as of their last report, every 10 s). */
  sent(): number {
    return this.sentBy.reduce((sum, n) => sum + n, 0);
  }

  private runOne(index: number, command: Command): Promise<{ sent: number; seconds: number; slowestRate: number }> {
    const child = spawn(command.file, command.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) this.samplers.push(sampleProcessTreeRss(child.pid, 1_000));
    let stderr = '';
    let pending = '';
    let last: { sent: number; seconds: number; done?: boolean } | undefined;
    let slowestRate = Infinity;
    child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const report = JSON.parse(line) as { sent: number; seconds: number; done?: boolean };
        // The last stretch (shorter than 10 s, ending at the deadline) says little about the pace.
        if (report.done !== true) slowestRate = Math.min(slowestRate, (report.sent - (last?.sent ?? 0)) / (report.seconds - (last?.seconds ?? 0)));
        last = report;
        this.sentBy[index] = report.sent;
      }
    });
    return new Promise((resolve, reject) => {
      child.on('exit', (code) => {
        if (code === 0 && last?.done === true) resolve({ sent: last.sent, seconds: last.seconds, slowestRate: Number.isFinite(slowestRate) ? slowestRate : last.sent / last.seconds });
        else reject(new Error(`producer ${index} exited with ${code}: ${stderr.slice(-2000)}`));
      });
    });
  }
}
