/**
 * One in-process DuckDB database per run. All compute goes through here, so errors come back
 * as typed errors and SQL text is quoted in one place.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DuckDbApi } from './node-api.js';

export type Row = Record<string, unknown>;

/** A session's DuckDB configuration (default: DuckDB's own). */
export interface DuckDbSettings {
  readonly threads?: number;
  readonly memoryLimit?: string;
  /**
   * DuckDB's allocator_bulk_deallocation_flush_threshold: freeing more than this at once hands the
   * allocator's cached memory back to the system (DuckDB's default 512 MiB).
   */
  readonly flushFreedMemoryAbove?: string;
}

export class DuckDbSession {
  /** The sessions open in this process: a shutdown that cannot wait for their queries stops them (interruptAll). */
  private static readonly opened = new Set<DuckDbSession>();

  /** Interrupts every open session's query (it fails with DuckDB's interrupt error), so the process can exit at once. */
  static interruptAll(): void {
    for (const session of DuckDbSession.opened) session.connection.interrupt();
  }

  private constructor(
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    /** The @duckdb/node-api module, loaded by the first session opened (a process that opens none never loads DuckDB). */
    readonly duckdb: DuckDbApi,
  ) {}

  static async open(options: DuckDbSettings = {}): Promise<DuckDbSession> {
    const config: Record<string, string> = {};
    if (options.threads !== undefined) config['threads'] = String(options.threads);
    if (options.memoryLimit !== undefined) config['memory_limit'] = options.memoryLimit;
    if (options.flushFreedMemoryAbove !== undefined) config['allocator_bulk_deallocation_flush_threshold'] = options.flushFreedMemoryAbove;
    const { duckdb } = await import('./node-api.js');
    const { registerTransformFunctions } = await import('./transform-udfs.js');
    const instance = await duckdb.DuckDBInstance.create(':memory:', config);
    const connection = await instance.connect();
    registerTransformFunctions(connection);
    const session = new DuckDbSession(instance, connection, duckdb);
    DuckDbSession.opened.add(session);
    return session;
  }

  async run(sql: string): Promise<void> {
    await this.connection.run(sql);
  }

  /** Rows as JSON-safe objects (bigints and decimals as strings, nested values as objects). */
  async queryJson(sql: string): Promise<Row[]> {
    const reader = await this.connection.runAndReadAll(sql);
    return reader.getRowObjectsJson() as Row[];
  }

  /** The first column of a query of non-null BIGINTs, in result order, without a JS value per row. */
  async queryBigInts(sql: string): Promise<BigInt64Array> {
    const result = await this.connection.run(sql);
    const parts: BigInt64Array[] = [];
    let total = 0;
    for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const vector = chunk.getColumnVector(0);
      const part = new BigInt64Array(chunk.rowCount);
      for (let i = 0; i < part.length; i += 1) part[i] = vector.getItem(i) as bigint;
      parts.push(part);
      total += part.length;
    }
    const out = new BigInt64Array(total);
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  close(): void {
    DuckDbSession.opened.delete(this);
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

export { quoteIdentifier } from '../iceberg/duckdb-types.js';

export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * DuckDB's message for embedding in our own errors, without its echo of the SQL text: that text
 * is the statement Thund wrapped around the user's query, which would only confuse.
 */
export function duckDbMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\n+LINE \d+:[\s\S]*$/, '').trim();
}
