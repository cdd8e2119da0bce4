/**
 * Structured logs: one JSON object a line on stdout ({time, level, msg, …fields}). Callers log
 * coordinates, counts and table names; settings that can hold secrets are never passed in, and
 * each line is scrubbed of every registered secret (an error field may repeat a server's answer).
 */
import { scrubSecrets } from '../../secrets.js';

export type LogLevel = 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export class JsonLogger implements Logger {
  constructor(private readonly write: (line: string) => void = (line) => void process.stdout.write(line)) {}

  log(level: LogLevel, message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    const entry = { time: new Date().toISOString(), level, msg: message, ...fields };
    this.write(`${scrubSecrets(JSON.stringify(entry, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)))}\n`);
  }
}
