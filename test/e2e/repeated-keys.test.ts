/**
 * A key column named twice (`keys: [id, id]`, on an upsert table or an apply_changes flow) is
 * refused at validation, at the table's line, before anything runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { thund } from './cli.js';

const work = mkdtempSync(join(tmpdir(), 'thund-repeated-keys-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function validateSpec(name: string, body: string): { status: number | null; stderr: string; stdout: string } {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, `pipeline: ${name}\nsources:\n  orders: {format: parquet, path: data/*.parquet}\ntables:\n${body}`);
  return thund(['validate', file]);
}

it('refuses an upsert table whose keys repeat a column, naming the file and line', () => {
  const result = validateSpec('upsert_twice', `  lake.latest:\n    mode: upsert\n    keys: [id, ID]\nflows:\n  load:\n    target: lake.latest\n    sql: SELECT id, v FROM orders\n`);
  expect(result.status).toBe(1);
  expect(`${result.stdout}${result.stderr}`).toMatch(/upsert_twice\.yaml:5:\d+ THUND_E_UPSERT_KEYS .*"ID".*more than once/);
});

it('refuses apply_changes keys that repeat a column', () => {
  const result = validateSpec(
    'cdc_twice',
    `  lake.history:\n    kind: streaming_table\n    sql: SELECT id, v, seq FROM STREAM(orders)\n    apply_changes:\n      keys: [id, id]\n      sequence_by: seq\n`,
  );
  expect(result.status).toBe(1);
  expect(`${result.stdout}${result.stderr}`).toMatch(/cdc_twice\.yaml:\d+:\d+ THUND_E_UPSERT_KEYS .*"id".*more than once/);
});
