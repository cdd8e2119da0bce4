/**
 * Adds the next file of lines to examples/wordcount_stream/data/lines/ (part-0000.parquet,
 * part-0001.parquet, …): 30 lines with event times around minute 7·N after 2026-01-01 00:00 UTC,
 * reaching up to 20 minutes behind the newest line before them (some arrive too late). Deterministic: every value is
 * arithmetic on the file and row number.
 *
 *   npx tsx examples/wordcount_stream/make-data.ts [--files N]
 */
import { mkdir, readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog'];

/** The lines of file `n` as a DuckDB SELECT (line VARCHAR, event_time TIMESTAMPTZ). */
export function linesSql(n: number): string {
  const words = `[${WORDS.map((w) => `'${w}'`).join(', ')}]`;
  return `SELECT concat_ws(' ', ${words}[(i * 3 + ${n}) % 8 + 1], ${words}[(i * 5 + 1) % 8 + 1], ${words}[(i + ${n} * 2) % 8 + 1]) AS line,
                 TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(${n * 420} + (i * 53) % 1500 - 1200) AS event_time
          FROM range(0, 30) t(i)`;
}

async function main(): Promise<void> {
  const folder = fileURLToPath(new URL('./data/lines/', import.meta.url));
  const index = process.argv.indexOf('--files');
  const count = index === -1 ? 1 : Number(process.argv[index + 1]);
  await mkdir(folder, { recursive: true });
  const existing = (await readdir(folder)).filter((name) => name.endsWith('.parquet')).length;
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (let n = existing; n < existing + count; n++) {
    const file = `${folder}part-${String(n).padStart(4, '0')}.parquet`;
    await connection.run(`COPY (${linesSql(n)}) TO '${file}' (FORMAT parquet)`);
    console.log(`wrote ${file}`);
  }
  connection.closeSync();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
