/**
 * The catalog block through the built CLI, without services: an embedded catalog placed by the
 * spec, `inspect --pipeline`, flags over the block, and failures that name the file, position,
 * field and variable, print no secret and leave nothing behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/iceberg/json.js';
import { QUICKSTART_INPUT, QUICKSTART_SPEC, QUICKSTART_TABLE } from '../interop/quickstart-expected.js';
import { filesUnder, thund, type InspectReport } from './cli.js';

let work: string;

/** The quickstart spec (input by absolute path) plus `blocks`, written to `<work>/<name>/pipeline.yaml`. */
function writeSpec(name: string, blocks: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'pipeline.yaml');
  const quickstart = readFileSync(QUICKSTART_SPEC, 'utf8').replace('path: data/orders.parquet', `path: ${QUICKSTART_INPUT}`);
  writeFileSync(file, `${quickstart}\n${blocks}`);
  return file;
}

/** 1-based line of the first line of `blocks` in a spec written by writeSpec. */
const blockLine = (): number => readFileSync(QUICKSTART_SPEC, 'utf8').split('\n').length + 1;

const inspectJson = (args: string[]): InspectReport => {
  const result = thund(['inspect', ...args, '--json'], work);
  if (result.status !== 0) throw new Error(`thund inspect failed (${result.status}): ${result.stderr}`);
  return parseJson(result.stdout, 'thund inspect --json') as InspectReport;
};

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-catalog-block-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('an embedded catalog placed by the spec', () => {
  it('writes under the warehouse the block names (relative to the spec), and inspect --pipeline finds the table', () => {
    const spec = writeSpec('sql', 'catalog: { type: sql, warehouse: wh, name: team }\n');
    const run = thund(['run', spec], work);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`warehouse: ${join(work, 'sql', 'wh')}`);
    expect(existsSync(join(work, 'sql', 'wh', 'catalog.db'))).toBe(true);
    expect(existsSync(join(work, 'warehouse'))).toBe(false);

    const report = inspectJson(['--pipeline', spec]);
    expect(Number(report.rowCount)).toBe(1000);
    expect(report.metadataLocation.startsWith(`file://${join(work, 'sql', 'wh')}/`)).toBe(true);
    // The block's catalog name is the one the table was registered under.
    const wrongName = thund(['inspect', QUICKSTART_TABLE, '--warehouse', join(work, 'sql', 'wh')], work);
    expect(wrongName.status).toBe(1);
    expect(wrongName.stderr).toMatch(/NO_SUCH_TABLE|NO_SUCH_NAMESPACE/);
    expect(Number(inspectJson([QUICKSTART_TABLE, '--warehouse', join(work, 'sql', 'wh'), '--catalog-name', 'team']).rowCount)).toBe(1000);
  });

  it('--warehouse on the command line wins over the block', () => {
    const spec = writeSpec('flag', 'catalog: { type: sql, warehouse: wh }\n');
    const flagged = join(work, 'flagged-wh');
    expect(thund(['run', spec, '--warehouse', flagged], work).status).toBe(0);
    expect(existsSync(join(flagged, 'catalog.db'))).toBe(true);
    expect(existsSync(join(work, 'flag', 'wh'))).toBe(false);
    expect(Number(inspectJson(['--pipeline', spec, '--warehouse', flagged]).rowCount)).toBe(1000);
  });
});

describe('catalog block failures', () => {
  it('an unset variable: one line naming file:line:column, field and variable; nothing written', () => {
    const spec = writeSpec('unset', 'catalog:\n  type: rest\n  uri: ${THUND_E2E_UNSET_URI}\n');
    const run = thund(['run', spec], work);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `thund: error [INVALID_INPUT]: ${spec}:${blockLine() + 2}:8: catalog.uri: environment variable THUND_E2E_UNSET_URI is not set (referenced as \${THUND_E2E_UNSET_URI})\n`,
    );
    expect(filesUnder(join(work, 'unset'))).toEqual(['pipeline.yaml']);
  });

  it('an inline token is refused without printing it', () => {
    const token = 'inline-token-0f3e9a-must-not-print';
    const spec = writeSpec('inline', `catalog:\n  type: rest\n  uri: http://127.0.0.1:9\n  auth:\n    type: bearer\n    token: ${token}\n`);
    const run = thund(['run', spec], work);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${spec}:${blockLine() + 5}:5 THUND_E_SPEC catalog.auth.token: "token" must not be written in the spec`);
    expect(run.stderr).toContain('token_env');
    expect(run.stderr).not.toContain(token);
  });

  it('inspect needs a table or a pipeline', () => {
    const run = thund(['inspect'], work);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('thund inspect needs a table');
  });
});
