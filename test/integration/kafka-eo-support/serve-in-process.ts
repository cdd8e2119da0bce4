/**
 * `thund serve` in the test's own process: the settings the serve tests share, a start that keeps
 * its log lines and a stop that waits until it returned, and a run until a table's positions
 * cover a number of records.
 */
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { serveSettings, type ServeFileSettings, type ServeFlag, type ServeSettings } from '../../../src/app/serve/serve-config.js';
import { serveOneTopic } from '../../../src/app/serve/serve-one-topic.js';
import { tableName, unique, waitForPositions } from './eo-stack.js';

/** Serve settings for `table` with a new consumer group, any free HTTP port, one DuckDB thread and a 6 s session timeout; then `flags`, then the `serve:` block. */
export function testServeSettings(brokers: string, table: TableIdentifier, flags: Readonly<Partial<Record<ServeFlag, string>>>, file?: ServeFileSettings): ServeSettings {
  return serveSettings({ 'kafka-brokers': brokers, group: unique('g'), table: tableName(table), 'http-port': '0', 'duckdb-threads': '1', 'session-timeout-ms': '6000', ...flags }, {}, file);
}

export interface InProcessServe {
  /** Its log lines, as JSON text. */
  readonly logs: readonly string[];
  /** Resolves its stop signal and waits until serve returned; rejects with serve's error. */
  stop(): Promise<void>;
}

/** Starts serve; `env` is where it reads the schema registry's URL and credentials (default process.env). */
export function startServe(pipeline: string, settings: ServeSettings, env?: Readonly<Record<string, string>>): InProcessServe {
  const logs: string[] = [];
  let signal: (reason: string) => void = () => undefined;
  const stopSignal = new Promise<string>((resolve) => (signal = resolve));
  const done = serveOneTopic({
    pipelinePath: pipeline,
    settings,
    overrides: {},
    logger: { log: (level, message, fields) => logs.push(JSON.stringify({ level, message, ...fields }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) },
    stopSignal,
    env,
  });
  // Its error surfaces through stop(); until then a rejection must not be unhandled.
  done.catch(() => undefined);
  return {
    logs,
    stop: async () => {
      signal('test');
      await done;
    },
  };
}

/** Runs serve until the table's positions cover `records` (90 s at most), stops it also when they do not, and returns its log lines. */
export async function serveUntilLanded(pipeline: string, table: TableIdentifier, records: number, settings: ServeSettings, env?: Readonly<Record<string, string>>): Promise<readonly string[]> {
  const running = startServe(pipeline, settings, env);
  try {
    await waitForPositions(pipeline, table, records, 90_000);
  } finally {
    await running.stop();
  }
  return running.logs;
}
