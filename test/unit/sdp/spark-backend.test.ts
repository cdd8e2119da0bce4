/**
 * The Spark backend refuses, before starting Spark, any graph the lowering does not map whole,
 * naming each element and its reason; and it declares what it can run.
 */
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import type { RunEvent } from '../../../src/backend/run-event.js';
import { sparkCatalogConfig } from '../../../src/sdp/catalog-conf.js';
import { SparkBackend } from '../../../src/sdp/spark-backend.js';
import { parseSparkVersion } from '../../../src/sdp/spark-version.js';
import { DEFAULT_CATALOG } from '../../../src/pipeline/connection-spec.js';
import { lowerYaml, PARQUET_SOURCES, yaml } from './lower-helpers.js';

let session: DuckDbSession;
let folder: string;
beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  folder = mkdtempSync(path.join(tmpdir(), 'thund-spark-backend-'));
});
afterAll(() => {
  session.close();
  rmSync(folder, { recursive: true, force: true });
});

const backend = (version: string) =>
  new SparkBackend({
    // A python that does not exist: the refusal must come before anything is started.
    runtime: { python: path.join(folder, 'no-venv', 'bin', 'python'), jars: [] },
    sparkVersion: parseSparkVersion(version),
    catalog: sparkCatalogConfig(DEFAULT_CATALOG, {}, '/p.yaml', {}, { warehouse: path.join(folder, 'wh') }),
    projectDir: path.join(folder, 'project'),
  });

describe('SparkBackend', () => {
  it('fails a graph with native elements up front, listing each with its reason, and writes nothing', async () => {
    const { graph } = await lowerYaml(
      session,
      yaml('pipeline: p', ...PARQUET_SOURCES, 'tables:', '  lake.t: { mode: overwrite, expectations: { ok: id > 0 }, sql: SELECT id FROM orders }', '  lake.u: { mode: overwrite, sql: SELECT id FROM orders }'),
    );
    const handle = backend('4.1').run(graph);
    const events: RunEvent[] = [];
    for await (const event of handle.events) events.push(event);
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('UNSUPPORTED');
    expect(result.error?.message).toMatch(/dataset lake\.t is RUN BY NATIVE \(1 expectation/);
    expect(result.error?.message).toMatch(/expectation lake\.t\.ok is RUN BY NATIVE/);
    expect(result.error?.message).not.toMatch(/lake\.u/);
    expect(events.map((event) => event.phase)).toEqual(['failed']);
    expect(existsSync(path.join(folder, 'project'))).toBe(false);
  });

  it('a start failure of spark-pipelines is a failed result, not a rejection', async () => {
    const { graph } = await lowerYaml(session, yaml('pipeline: p', ...PARQUET_SOURCES, 'tables:', '  lake.u: { mode: overwrite, sql: SELECT id FROM orders }'));
    const result = await backend('4.1').run(graph).result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('SPARK_RUN_FAILED');
    expect(existsSync(path.join(folder, 'project', 'spark-pipeline.yml'))).toBe(true);
  });

  it('declares AUTO CDC (apply-changes, SCD type 1) only from Spark 4.2', () => {
    expect(backend('4.1').capabilities().flowKinds).toEqual(['append']);
    expect(backend('4.3').capabilities()).toMatchObject({ flowKinds: ['append', 'apply-changes'], scdTypes: [1], expectationActions: [] });
  });
});
