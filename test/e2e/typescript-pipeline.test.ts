/**
 * Pipelines written in TypeScript (and JavaScript): `thund validate | plan | run | lower` take a
 * module whose default export is a built graph. examples/cdc_scd2/pipeline.ts, the YAML spec's
 * twin, gives the same IR (origins aside: they point into the .ts file, at the lines that
 * declared each element), the same plan, the same lowered project and the same table. A module
 * with problems gets them as `file:line:col CODE message` lines pointing into the .ts file: the
 * graph's problems, a compile error, a throw while loading, a builder exported unbuilt, a bad
 * `catalog` export. ES modules and CommonJS packages both load.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalog } from '../../src/app/api/catalog-handle.js';
import { loadPipelineDefinition } from '../../src/pipeline/definition-file.js';
import type { PipelineDefinition } from '../../src/pipeline/spec-to-ir.js';
import { filesUnder, REPO, thund } from './cli.js';
import { withoutOrigins } from '../support/without-origins.js';

const EXAMPLE = join(REPO, 'examples/cdc_scd2');
const TS = join(EXAMPLE, 'pipeline.ts');
const YAML = join(EXAMPLE, 'pipeline.yaml');
/** What a module outside this repo imports instead of 'thund': the built package's entry. */
const PACKAGE = pathToFileURL(join(REPO, 'dist/src/index.js')).href;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-ts-pipeline-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function definitionOf(file: string): Promise<PipelineDefinition> {
  const loaded = await loadPipelineDefinition(file);
  if (!loaded.ok) throw new Error(loaded.problems.map((problem) => problem.message).join('\n'));
  return loaded.definition;
}

/** 1-based line of the first line of `file` containing `text`. */
function lineOf(file: string, text: string): number {
  const index = readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

describe('examples/cdc_scd2: the TypeScript twin of the YAML spec', () => {
  it('gives the same IR, its origins at the .ts lines that declared each element', async () => {
    const [ts, yaml] = await Promise.all([definitionOf(TS), definitionOf(YAML)]);
    expect(withoutOrigins(ts.graph)).toEqual(withoutOrigins(yaml.graph));
    expect(ts.graph.datasets.map((dataset) => [dataset.name, dataset.origin.file, dataset.origin.line])).toEqual([
      ['customer_changes', TS, lineOf(TS, ".source('customer_changes'")],
      ['lake.customers_history', TS, lineOf(TS, ".streamingTable('lake.customers_history'")],
    ]);
    expect(ts.graph.flows.map((flow) => flow.origin.line)).toEqual([lineOf(TS, ".streamingTable('lake.customers_history'")]);
    // Neither names a catalog: both the embedded default.
    expect(ts.catalog.type).toBe('sql');
    expect(yaml.catalog.type).toBe('sql');
  });

  it('validates, plans and lowers as the YAML spec does', () => {
    for (const command of [['validate'], ['plan'], ['plan', '--format', 'mermaid']]) {
      const [fromTs, fromYaml] = [thund([command[0]!, TS, ...command.slice(1)]), thund([command[0]!, YAML, ...command.slice(1)])];
      expect(fromTs.stderr).toBe('');
      expect(fromTs.status).toBe(0);
      expect(fromTs.stdout).toBe(fromYaml.stdout);
    }
    const lowered = (spec: string, out: string): Map<string, string> => {
      const result = thund(['lower', spec, '--target', 'sdp', '--out', out]);
      expect(result.status, result.stderr).toBe(0);
      return new Map(filesUnder(out).map((file) => [file, readFileSync(join(out, file), 'utf8')]));
    };
    const [fromTs, fromYaml] = [lowered(TS, join(work, 'sdp-ts')), lowered(YAML, join(work, 'sdp-yaml'))];
    expect([...fromTs.keys()]).toEqual([...fromYaml.keys()]);
    expect(fromTs.size).toBeGreaterThan(1);
    // The project's folder (checkpoints go under it) and the pipeline file are named in its files: the same once named alike.
    const alike = (text: string): string => text.replaceAll('sdp-ts', 'sdp-yaml').replaceAll('cdc_scd2/pipeline.ts', 'cdc_scd2/pipeline.yaml');
    for (const [file, text] of fromTs) expect(alike(text), file).toBe(fromYaml.get(file));
  });

  it('runs into the same table: one SCD2 snapshot per change file, the same history rows', async () => {
    const tables = [];
    for (const [spec, warehouse] of [[TS, join(work, 'wh-ts')], [YAML, join(work, 'wh-yaml')]] as const) {
      const run = thund(['run', spec, '--warehouse', warehouse]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('lake.customers_history');
      const lake = await openCatalog({ catalog: { type: 'sql', warehouse } });
      try {
        const table = await lake.table('lake.customers_history').read();
        tables.push(table.toArray().map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort());
      } finally {
        await lake.close();
      }
    }
    const [fromTs, fromYaml] = tables;
    expect(fromTs!.length).toBeGreaterThan(40);
    expect(fromTs).toEqual(fromYaml);
    // A second run of each reads nothing new: each one's positions are in its own table.
    for (const [spec, warehouse] of [[TS, join(work, 'wh-ts')], [YAML, join(work, 'wh-yaml')]] as const) {
      const again = thund(['run', spec, '--warehouse', warehouse]);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain('lake.customers_history — 0 rows read, 0 rows written');
    }
  });
});

describe('problems in a pipeline module', () => {
  function moduleFile(name: string, lines: readonly string[], folder = 'modules'): string {
    const dir = join(work, folder);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, name);
    writeFileSync(file, lines.join('\n'));
    return file;
  }

  it("names the .ts line of each element at fault, as YAML problems name the spec's lines", () => {
    const file = moduleFile('typo.ts', [
      `import { parquet, pipeline } from '${PACKAGE}';`,
      '',
      'interface Shop { readonly name: string }',
      "const shop: Shop = { name: 'shop' };",
      '',
      'export default pipeline(shop.name)',
      "  .source('raw_orders', parquet('/data/orders/*.parquet'))",
      "  .streamingTable('lake.orders', { sql: 'SELECT * FROM STREAM(raw_order)' })",
      "  .materializedView('lake.totals', { sql: 'SELECT count(*) AS n FROM lake.orders' })",
      "  .materializedView('lake.totals', { sql: 'SELECT 1 AS n' })",
      '  .build();',
    ]);
    const result = thund(['validate', file]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines).toContain(`${file}:8:4 THUND_E_UNKNOWN_REF flow "lake.orders" reads "raw_order", which is not a declared dataset (did you mean raw_orders?)`);
    expect(lines.filter((line) => line.startsWith(`${file}:10:4 THUND_E_DUPLICATE_NAME`))).toHaveLength(2);
    // run refuses it the same way, before anything is written.
    const run = thund(['run', file, '--warehouse', join(work, 'wh-typo')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:8:4 THUND_E_UNKNOWN_REF`);
    expect(filesUnder(join(work, 'wh-typo'))).toEqual([]);
  });

  /** `validate` of the module `lines` written as `<name>.ts` prints `expected` first, after the file's path. */
  function expectProblem(name: string, lines: readonly string[], expected: string): void {
    const file = moduleFile(`${name}.ts`, lines);
    const result = thund(['validate', file]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.stdout.startsWith(`${file}${expected}`), result.stdout).toBe(true);
    expect(result.stdout).not.toMatch(/\n\s+at /);
  }

  it('a compile error, at its line and column', () =>
    expectProblem(
      'compile-error',
      ['const a: number = 1;', `import { pipeline } from '${PACKAGE}';`, "export default pipeline('x'", '  .build();'],
      ':4:11 THUND_E_PIPELINE_MODULE the module does not compile: Expected ")" but found ";"',
    ));

  it('a throw while loading, at the line that threw', () =>
    expectProblem(
      'throws',
      [`import { pipeline } from '${PACKAGE}';`, 'const names: string[] = [];', 'export default pipeline(names[3]!.toUpperCase()).build();'],
      ":3:35 THUND_E_PIPELINE_MODULE the module threw while loading: Cannot read properties of undefined (reading 'toUpperCase')",
    ));

  it("a builder's own refusal, with its code", () =>
    expectProblem(
      'refusal',
      [`import { pipeline } from '${PACKAGE}';`, '', "export default pipeline('x').streamingTable('lake.t', { partitionedBy: ['dya(ts)'] }).build();"],
      ':3:30 THUND_E_PIPELINE_MODULE the module threw while loading: [INVALID_INPUT] streaming table "lake.t": "dya(ts)" is not a partition term',
    ));

  it('a builder input of the wrong shape, at its line, naming the field', () =>
    expectProblem(
      'wrong-shape',
      [`import { pipeline } from '${PACKAGE}';`, '', "export default pipeline('x').streamingTable('lake.t', { sql: 'SELECT 1 AS a', partitionBy: ['a'] }).build();"],
      ':3:30 THUND_E_PIPELINE_MODULE the module threw while loading: [INVALID_INPUT] streaming table "lake.t": partitionBy: unknown field (did you mean partitionedBy?)',
    ));

  it('a builder exported unbuilt', () =>
    expectProblem(
      'unbuilt',
      [`import { pipeline } from '${PACKAGE}';`, '', "export default pipeline('x');"],
      ":3:1 THUND_E_PIPELINE_MODULE the default export is a pipeline builder, not its graph; export what .build() returns: export default pipeline('name')….build()",
    ));

  it('no default export', () =>
    expectProblem(
      'no-default',
      [`import { pipeline } from '${PACKAGE}';`, "export const graph = pipeline('x').build();"],
      ":1:1 THUND_E_PIPELINE_MODULE the module has no default export; export the pipeline graph: export default pipeline('name')….build()",
    ));

  it('a catalog export the spec schema refuses, at the export', () =>
    expectProblem(
      'bad-catalog',
      [`import { pipeline } from '${PACKAGE}';`, '', "export const catalog = { type: 'rest' };", "export default pipeline('x').build();"],
      ':3:1 THUND_E_SPEC export catalog: missing required field "uri"',
    ));

  it('loads an .mjs module, and a .ts module in a CommonJS package', () => {
    const graph = (name: string): string[] => [
      `export default pipeline('${name}')`,
      "  .source('raw', parquet('/data/*.parquet'))",
      "  .streamingTable('lake.t', { sql: 'SELECT * FROM STREAM(raw)' })",
      '  .build();',
    ];
    const mjs = moduleFile('plain.mjs', [`import { parquet, pipeline } from '${PACKAGE}';`, ...graph('plain')]);
    const commonJs = join(work, 'commonjs');
    mkdirSync(commonJs, { recursive: true });
    writeFileSync(join(commonJs, 'package.json'), '{ "name": "commonjs-project" }');
    const cts = moduleFile('pipeline.ts', [`import { parquet, pipeline } from '${PACKAGE}';`, 'type Name = string;', ...graph('commonjs')], 'commonjs');
    for (const [file, name] of [[mjs, 'plain'], [cts, 'commonjs']] as const) {
      const result = thund(['plan', file]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain(`pipeline ${name}: 2 datasets, 1 flows`);
    }
    const typo = moduleFile('pipeline-typo.ts', [`import { pipeline } from '${PACKAGE}';`, 'type Name = string;', "export default pipeline('x')", "  .streamingTable('lake.t', { sql: 'SELECT * FROM STREAM(nothing)' })", '  .build();'], 'commonjs');
    expect(thund(['validate', typo]).stdout).toContain(`${typo}:4:4 THUND_E_UNKNOWN_REF`);
  });
});
