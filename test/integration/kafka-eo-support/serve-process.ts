/**
 * `thund serve` as a child process (the built CLI, dist/bin/thund.js): its JSON log lines, its
 * HTTP port, kill -9 and SIGTERM, and its exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '../../../dist/bin/thund.js');

export interface ServeOptions {
  readonly pipeline: string;
  readonly brokers: string;
  readonly topic: string;
  readonly group: string;
  readonly table: string;
  readonly commitRecords?: number;
  readonly commitIntervalMs?: number;
  readonly sql?: string;
  /** `default`: no --duckdb-threads, the service's own choice (kafka-duckdb-settings.ts); otherwise that many (1 when unset). */
  readonly duckdbThreads?: number | 'default';
  /** --value-format (default json). */
  readonly valueFormat?: string;
  /** --session-timeout-ms (default 6000: a killed member's partitions move soon). */
  readonly sessionTimeoutMs?: number;
  readonly extraEnv?: Readonly<Record<string, string>>;
}

export class ServeProcess {
  readonly logs: Array<Record<string, unknown>> = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  private constructor(readonly port: number, args: readonly string[], extraEnv: Readonly<Record<string, string>> = {}) {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    this.child = spawn(process.execPath, [CLI, 'serve', ...args, '--http-port', String(port)], { env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') this.logs.push(JSON.parse(line) as Record<string, unknown>);
    });
    this.child.stderr?.on('data', (chunk: Buffer) => void (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Serves one topic into one table. */
  static async start(options: ServeOptions): Promise<ServeProcess> {
    const args = [options.pipeline, '--kafka-brokers', options.brokers, '--topic', options.topic, '--group', options.group, '--table', options.table, '--session-timeout-ms', String(options.sessionTimeoutMs ?? 6_000), '--commit-records', String(options.commitRecords ?? 20_000), '--commit-interval-ms', String(options.commitIntervalMs ?? 1_000), ...(options.duckdbThreads === 'default' ? [] : ['--duckdb-threads', String(options.duckdbThreads ?? 1)])];
    if (options.sql !== undefined) args.push('--sql', options.sql);
    if (options.valueFormat !== undefined) args.push('--value-format', options.valueFormat);
    return new ServeProcess(await freePort(), args, options.extraEnv);
  }

  /** Serves a pipeline with flows: its whole graph, triggered every `triggerIntervalMs`. */
  static async startPipeline(pipeline: string, options: { readonly triggerIntervalMs?: number; readonly extraEnv?: Readonly<Record<string, string>> } = {}): Promise<ServeProcess> {
    return new ServeProcess(await freePort(), [pipeline, '--trigger-interval-ms', String(options.triggerIntervalMs ?? 500)], options.extraEnv);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  async get(path: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`http://127.0.0.1:${this.port}${path}`);
    return { status: response.status, body: await response.text() };
  }

  /** Waits until /readyz answers 200 (the catalog answers and partitions are assigned). */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.get('/readyz').catch(() => undefined);
      if (state?.status === 200) return;
      if (this.child.exitCode !== null) throw new Error(`serve exited with ${this.child.exitCode}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`serve not ready after ${timeoutMs} ms (last: ${state?.status} ${state?.body}); stderr: ${this.stderr}`);
      await sleep(200);
    }
  }

  committedBatches(): number {
    return this.logs.filter((l) => l['msg'] === 'batch committed').length;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
