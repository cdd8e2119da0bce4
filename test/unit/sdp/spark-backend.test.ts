/**
 * The Spark backend refuses, before starting Spark, any graph the lowering does not map whole,
 * naming each element and its reason; and it declares what it can run.
 */
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { InvalidInputError } from '../../../src/errors.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import { parsePipelineDefinition, type PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { defaultSparkProjectDir, sparkBackendFor } from '../../../src/sdp/spark-backend-for.js';
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

  it('sparkBackendFor: Spark from the environment, the pipeline\'s catalog, and a project folder beside the pipeline that stays put', async () => {
    const specPath = path.join(folder, 'defs', 'p.yaml');
    const parsed = parsePipelineDefinition(yaml('pipeline: my-pipe', 'catalog: { type: sql, warehouse: wh }', ...PARQUET_SOURCES, 'tables:', '  lake.u: { mode: overwrite, sql: SELECT id FROM orders }'), specPath);
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
    const inferred = await inferDependencies(parsed.definition.graph, duckDbSqlParser(session));
    const definition: PipelineDefinition = { ...parsed.definition, graph: inferred.graph };

    expect(() => sparkBackendFor(definition, { env: {} })).toThrow(InvalidInputError);
    expect(() => sparkBackendFor(definition, { env: {} })).toThrow(/THUND_SPARK_PIPELINES_PYTHON/);

    const env = { THUND_SPARK_PIPELINES_PYTHON: path.join(folder, 'no-venv', 'bin', 'python') };
    const projectDir = defaultSparkProjectDir(definition);
    expect(projectDir).toBe(path.join(folder, 'defs', '.thund', 'spark', 'my-pipe'));
    const spark = sparkBackendFor(definition, { env, sparkVersion: '4.2' });
    expect(spark.capabilities().flowKinds).toContain('apply-changes');
    expect(spark.lower(definition.graph).report.catalog).toContain(path.join(folder, 'defs', 'wh', 'catalog.db'));
    const result = await spark.run(definition.graph).result;
    expect(result.error?.code).toBe('SPARK_RUN_FAILED');
    expect(existsSync(path.join(projectDir, 'spark-pipeline.yml'))).toBe(true);
  });
});
