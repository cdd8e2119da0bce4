/**
 * `thund lower` end to end without Spark: the project files and the JSON report land on disk, a
 * second lowering replaces the definitions (no stale file stays in the libraries glob), and a
 * folder that holds something else is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerCommand } from '../../../src/app/commands/lower.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../examples/sdp/pipeline.yaml');
let folder: string;
beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'thund-lower-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('thund lower', () => {
  it('writes the project and the JSON report, prints the text report, and lowers again into its own folder', async () => {
    const out = path.join(folder, 'project');
    const reportFile = path.join(folder, 'report.json');
    const lines: string[] = [];
    const options = { target: 'sdp', out, check: false, reportJson: reportFile, warehouse: path.join(folder, 'wh') };
    expect(await lowerCommand(EXAMPLE, options, (line) => lines.push(line))).toBe(0);
    expect(readFileSync(path.join(out, 'spark-pipeline.yml'), 'utf8')).toContain('name: sdp_example');
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { entries: { status: string }[]; summary: Record<string, number> };
    expect(report.entries.length).toBe(report.summary['MAPPED']! + report.summary['RUN BY NATIVE']! + report.summary['REFUSED']!);
    expect(lines.join('\n')).toMatch(/^summary: \d+ mapped, \d+ run by native, \d+ refused$/m);

    writeFileSync(path.join(out, 'transformations', 'stale.sql'), 'CREATE MATERIALIZED VIEW x AS SELECT 1;');
    expect(await lowerCommand(EXAMPLE, options, () => {})).toBe(0);
    expect(readdirSync(path.join(out, 'transformations'))).not.toContain('stale.sql');
  });

  it('refuses a folder that holds something other than a lowering, and an unknown target', async () => {
    const foreign = path.join(folder, 'foreign');
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
    await expect(lowerCommand(EXAMPLE, { target: 'sdp', out: foreign, check: false }, () => {})).rejects.toThrow(/not empty and holds no earlier lowering/);
    expect(existsSync(path.join(foreign, 'spark-pipeline.yml'))).toBe(false);
    await expect(lowerCommand(EXAMPLE, { target: 'flink', out: foreign, check: false }, () => {})).rejects.toThrow(/--target must be one of sdp/);
  });
});
