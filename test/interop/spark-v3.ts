/**
 * One Spark 4.1 session with Iceberg's 1.12 runtime (the SDP install of test/stack/spark-pipelines.ts:
 * its venv's pyspark 4.1.4 and its jars) for the format v3 interop tests, driven step by step
 * through test/interop/spark_v3.py over stdin/stdout: SQL in, rows out, plus the table's files as
 * Iceberg's Java library plans them and equality deletes written by Iceberg's generic writer
 * (ThundEqualityDeletes.java, compiled here with the JDK's javac into the cache, once).
 * Spark opens the same SQLite file as Thund's embedded catalog (Iceberg JDBC catalog, read and
 * written), so both engines see each other's commits. A JVM start costs ~15 s: one session serves
 * a whole test file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { cacheDir, runStep } from '../stack/process.js';
import { prepareSparkPipelines, SDP_ICEBERG_VERSION, SDP_SPARK_VERSION } from '../stack/spark-pipelines.js';

const HERE = import.meta.dirname;
const DRIVER = path.join(HERE, 'spark_v3.py');
const HELPER_SOURCE = path.join(HERE, 'ThundEqualityDeletes.java');
const MARKER = '@@spark_v3@@ ';
/** A cold JVM on two busy cores, and a MERGE or a scan of a few hundred thousand rows. */
const START_TIMEOUT_MS = 300_000;
const COMMAND_TIMEOUT_MS = 300_000;

export const SPARK_V3_VERSIONS = `Spark ${SDP_SPARK_VERSION}, Iceberg ${SDP_ICEBERG_VERSION}`;

export interface SparkV3Setup {
  readonly python: string;
  /** iceberg-spark-runtime-4.1 and sqlite-jdbc. */
  readonly jars: readonly string[];
  /** Folder of the compiled ThundEqualityDeletes class. */
  readonly helperClasses: string;
}

let setup: Promise<SparkV3Setup> | undefined;

/** The venv, the jars and the compiled helper; each cached across runs, resolved once per process. */
export function prepareSparkV3(): Promise<SparkV3Setup> {
  setup ??= (async () => {
    const pipelines = await prepareSparkPipelines();
    const jars = pipelines.jars.filter((jar) => /^(iceberg-spark-runtime-4\.1_|sqlite-jdbc-)/.test(path.basename(jar)));
    const runtime = jars.find((jar) => path.basename(jar).startsWith('iceberg-spark-runtime'));
    if (runtime === undefined || jars.length !== 2) throw new Error(`the SDP classpath lacks the Iceberg runtime or sqlite-jdbc: ${pipelines.jars.join(', ')}`);
    return { python: pipelines.python, jars, helperClasses: await compileHelper(runtime) };
  })().catch((error: unknown) => {
    setup = undefined;
    throw error;
  });
  return setup;
}

/** javac of ThundEqualityDeletes.java against the Iceberg runtime, into a cache folder keyed by both. */
async function compileHelper(runtimeJar: string): Promise<string> {
  const source = readFileSync(HELPER_SOURCE);
  const key = createHash('sha256').update(source).update(path.basename(runtimeJar)).digest('hex').slice(0, 16);
  const dir = cacheDir('java-helpers', `thund-equality-deletes-${key}`);
  const stamp = path.join(dir, '.complete');
  if (!existsSync(stamp)) {
    await runStep('javac-thund-equality-deletes', 'javac', ['--release', '17', '-nowarn', '-cp', runtimeJar, '-d', dir, HELPER_SOURCE]);
    writeFileSync(stamp, new Date().toISOString());
  }
  return dir;
}

export interface SqlResult {
  readonly columns: string[];
  /** Values as text (longs as decimal digits), null as null. */
  readonly rows: Record<string, unknown>[];
}

export interface SparkDeleteFile {
  readonly path: string;
  /** POSITION_DELETES or EQUALITY_DELETES. */
  readonly content: string;
  /** PUFFIN for a deletion vector. */
  readonly format: string;
  readonly record_count: string;
  readonly file_size_in_bytes: string;
  readonly referenced_data_file: string | null;
  readonly content_offset: string | null;
  readonly content_size_in_bytes: string | null;
  readonly equality_field_ids: number[];
  readonly data_sequence_number: string | null;
}

export interface SparkDataFile {
  readonly path: string;
  readonly record_count: string;
  readonly first_row_id: string | null;
  readonly data_sequence_number: string | null;
  readonly spec_id: number;
  readonly deletes: SparkDeleteFile[];
}

export interface SparkTableFiles {
  readonly format_version: number;
  readonly next_row_id: string | null;
  readonly current_snapshot_id: string | null;
  readonly metadata_location: string;
  readonly snapshots: { snapshot_id: string; sequence_number: string; first_row_id: string | null; added_rows: string | null; operation: string | null; summary: Record<string, string> }[];
  readonly data_files: SparkDataFile[];
}

interface Answer {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
}

export class SparkV3Session {
  private readonly answers: Answer[] = [];
  private waiting: ((answer: Answer | undefined) => void) | undefined;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly log: string,
    readonly catalogName: string,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith(MARKER)) return;
      this.deliver(JSON.parse(line.slice(MARKER.length)) as Answer);
    });
    child.on('exit', () => {
      this.closed = true;
      this.deliver(undefined);
    });
  }

  /** Starts Spark on the catalog file; `log` receives Spark's stderr. */
  static async start(options: { catalogDb: string; warehouse: string; log: string; catalogName?: string }): Promise<SparkV3Session> {
    const { python, jars, helperClasses } = await prepareSparkV3();
    const catalogName = options.catalogName ?? 'default';
    const logFd = openSync(options.log, 'a');
    const child = spawn(
      python,
      [DRIVER, '--catalog-db', options.catalogDb, '--warehouse', options.warehouse, '--catalog-name', catalogName, '--jars', jars.join(','), '--helper-classes', helperClasses],
      { stdio: ['pipe', 'pipe', logFd], env: { ...process.env, PYSPARK_PYTHON: python, SPARK_LOCAL_IP: '127.0.0.1' }, detached: true },
    ) as unknown as ChildProcessWithoutNullStreams;
    closeSync(logFd);
    const session = new SparkV3Session(child, options.log, catalogName);
    const first = await session.next(START_TIMEOUT_MS);
    if (first === undefined || !first.ok) {
      await session.stop();
      throw new Error(`Spark (${SPARK_V3_VERSIONS}) did not start: ${first?.error ?? 'the driver exited'}\n${session.logTail()}`);
    }
    return session;
  }

  /** `catalog.ns.t` with every part quoted, for SQL. */
  table(name: string): string {
    return [this.catalogName, ...name.split('.')].map((part) => `\`${part.replace(/`/g, '``')}\``).join('.');
  }

  async sql(sql: string): Promise<void> {
    await this.command({ op: 'sql', sql, collect: false });
  }

  async query(sql: string): Promise<SqlResult> {
    return (await this.command({ op: 'sql', sql, collect: true })) as SqlResult;
  }

  async files(table: string): Promise<SparkTableFiles> {
    return (await this.command({ op: 'files', table })) as SparkTableFiles;
  }

  /** Equality deletes written and committed by Iceberg's Java library (values as text). */
  async equalityDeletes(table: string, columns: readonly string[], rows: readonly (readonly (string | null)[])[]): Promise<{ path: string; record_count: number; snapshot_id: string }> {
    return (await this.command({ op: 'equality_deletes', table, columns, rows })) as { path: string; record_count: number; snapshot_id: string };
  }

  async stop(): Promise<void> {
    if (!this.closed) {
      this.child.stdin.end();
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      const killer = setTimeout(() => this.kill(), 60_000);
      await exited;
      clearTimeout(killer);
    }
  }

  private kill(): void {
    if (this.child.pid === undefined || this.closed) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  logTail(lines = 40): string {
    try {
      return readFileSync(this.log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  private command(payload: Record<string, unknown>): Promise<unknown> {
    const run = this.queue.then(async () => {
      if (this.closed) throw new Error(`the Spark session has exited\n${this.logTail()}`);
      this.child.stdin.write(`${JSON.stringify(payload)}\n`);
      const answer = await this.next(COMMAND_TIMEOUT_MS);
      if (answer === undefined) throw new Error(`the Spark session exited during ${JSON.stringify(payload).slice(0, 300)}\n${this.logTail()}`);
      if (!answer.ok) throw new Error(`Spark failed: ${answer.error}\n  command: ${JSON.stringify(payload).slice(0, 600)}`);
      return answer.result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private deliver(answer: Answer | undefined): void {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting(answer);
    } else if (answer !== undefined) this.answers.push(answer);
  }

  private next(timeoutMs: number): Promise<Answer | undefined> {
    const queued = this.answers.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        // A late answer would be taken for the next command's: the session ends here.
        this.kill();
        reject(new Error(`Spark did not answer within ${timeoutMs / 1000} s\n${this.logTail()}`));
      }, timeoutMs);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
    });
  }
}
