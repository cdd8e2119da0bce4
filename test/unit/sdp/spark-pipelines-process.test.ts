/**
 * How spark-pipelines is started, against a stand-in executable that prints what it was given: a
 * local run hands its loopback and UI settings to the local Spark Connect server through a
 * spark-defaults.conf of its own (the --conf chunks pyspark 4.1.4 passes on lose all but the last),
 * removed when the run ends; a run on a remote server gets neither.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSparkPipelines } from '../../../src/sdp/spark-pipelines-process.js';
import type { SparkRuntime } from '../../../src/sdp/spark-runtime.js';

let folder: string;
let python: string;
const savedConfDir = process.env['SPARK_CONF_DIR'];

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'thund-spark-process-'));
  const bin = path.join(folder, 'venv', 'bin');
  mkdirSync(bin, { recursive: true });
  python = path.join(bin, 'python');
  const script = path.join(bin, 'spark-pipelines');
  writeFileSync(
    script,
    ['#!/usr/bin/env bash', 'echo "conf-dir=${SPARK_CONF_DIR:-none}"', 'echo "args=$*"', 'if [ -n "$SPARK_CONF_DIR" ]; then cat "$SPARK_CONF_DIR/spark-defaults.conf"; fi', ''].join('\n'),
  );
  chmodSync(script, 0o755);
  delete process.env['SPARK_CONF_DIR'];
});

afterAll(() => {
  if (savedConfDir !== undefined) process.env['SPARK_CONF_DIR'] = savedConfDir;
  rmSync(folder, { recursive: true, force: true });
});

async function linesOf(runtime: SparkRuntime): Promise<string[]> {
  const lines: string[] = [];
  const run = startSparkPipelines({ runtime, command: 'dry-run', projectDir: folder, onLine: (line) => lines.push(line) });
  expect(await run.exit).toEqual({ code: 0, signal: null });
  return lines;
}

describe('startSparkPipelines', () => {
  it('a local run: the loopback settings in a spark-defaults.conf of its own (and as --conf), removed after the run', async () => {
    const lines = await linesOf({ python, jars: [] });
    const confDir = lines.find((line) => line.startsWith('conf-dir='))?.slice('conf-dir='.length) ?? '';
    expect(confDir).toContain('thund-spark-conf-');
    expect(lines).toEqual(expect.arrayContaining(['spark.connect.grpc.binding.address 127.0.0.1', 'spark.driver.bindAddress 127.0.0.1', 'spark.ui.enabled false']));
    expect(lines.find((line) => line.startsWith('args='))).toContain('--conf spark.connect.grpc.binding.address=127.0.0.1');
    expect(existsSync(confDir)).toBe(false);
  });

  it('a run on a Spark Connect server: no local settings', async () => {
    const lines = await linesOf({ python, jars: [], remote: 'sc://127.0.0.1:15999' });
    expect(lines[0]).toBe('conf-dir=none');
    expect(lines[1]).toBe(`args=--remote sc://127.0.0.1:15999 dry-run --spec ${path.join(folder, 'spark-pipeline.yml')}`);
  });
});
