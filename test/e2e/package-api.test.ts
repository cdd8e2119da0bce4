/**
 * The package as a user gets it: `npm pack` of the built package, installed with its dependencies
 * into a fresh project outside the repo, where the README's example (examples/library/orders.ts)
 * type-checks against the package's declarations and runs: a builder pipeline over a Parquet
 * file run into an embedded catalog, an Arrow table appended and a row upserted with the table
 * API, the table read back as Arrow. The rows it prints, and the rows pyiceberg reads from the
 * same catalog, are the input with those changes applied. The installed `thund` command runs
 * examples/cdc_scd2/pipeline.ts, which imports the package by name, as it runs its YAML twin.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { readWithPyiceberg, type PyicebergTable } from '../interop/pyiceberg.js';
import { REPO } from './cli.js';

const EXAMPLE = join(REPO, 'examples/library/orders.ts');
/** A pipeline written in TypeScript, and its YAML twin, with their input. */
const CDC_EXAMPLE = join(REPO, 'examples/cdc_scd2');
/** The Parquet input: three orders. */
const INPUT = [
  { id: 1, customer: 'c1', amount: 1.5 },
  { id: 2, customer: 'c2', amount: 3 },
  { id: 3, customer: 'c3', amount: 4.5 },
];
/** What the example writes with the table API: an Arrow row appended, order 1 upserted. */
const APPENDED = { id: 100, customer: 'zoe', amount: 9.5 };
const UPSERTED = { id: 1, customer: 'ann', amount: 42 };
const EXPECTED = [...INPUT.filter((row) => row.id !== UPSERTED.id), APPENDED, UPSERTED].sort((a, b) => a.id - b.id);

interface Packed {
  readonly filename: string;
  readonly files: readonly { path: string }[];
}

function check(what: string, result: SpawnSyncReturns<string>): string {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

describe('the packed package, installed into a fresh project', () => {
  let root: string;
  let project: string;
  let packed: Packed;
  let typecheck: SpawnSyncReturns<string>;
  let output: string;
  let warehouse: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'thund-package-'));
    project = join(root, 'consumer');
    mkdirSync(project);
    // The build (npm run build) is what is packed: --ignore-scripts skips `prepare` building it again.
    const packJson = check('npm pack', run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], REPO));
    packed = (JSON.parse(packJson.slice(packJson.indexOf('['))) as Packed[])[0]!;
    const arrowVersion = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['apache-arrow']!;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'thund-consumer', private: true, type: 'module' }));
    check(
      'npm install of the tarball',
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(root, packed.filename), `apache-arrow@${arrowVersion}`], project),
    );
    copyFileSync(EXAMPLE, join(project, 'orders.ts'));
    for (const file of ['pipeline.ts', 'pipeline.yaml', 'data/changes']) cpSync(join(CDC_EXAMPLE, file), join(project, 'cdc', file), { recursive: true });
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          // The package's declarations are checked too, as a strict user's build would.
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules/@types')],
        },
        files: ['orders.ts', 'cdc/pipeline.ts'],
      }),
    );
    typecheck = run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);

    const session = await DuckDbSession.open();
    try {
      const values = INPUT.map((row) => `(${row.id}, ${quoteLiteral(row.customer)}, ${row.amount})`).join(', ');
      await session.run(
        `COPY (SELECT id::BIGINT AS id, customer, amount::DOUBLE AS amount FROM (VALUES ${values}) t(id, customer, amount)) TO ${quoteLiteral(join(project, 'orders.parquet'))} (FORMAT parquet)`,
      );
    } finally {
      session.close();
    }
    warehouse = join(project, 'warehouse');
    output = check('the example', run(process.execPath, [join(REPO, 'node_modules/tsx/dist/cli.mjs'), 'orders.ts', 'orders.parquet', warehouse], project));
  }, 900_000);

  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  it('ships the built library, its declarations and the CLI, and no tests or sources', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/bin/thund.js']));
    expect(paths.filter((path) => !path.startsWith('dist/') && path !== 'package.json' && path !== 'README.md')).toEqual([]);
    expect(paths.filter((path) => path.startsWith('dist/test/') || path.startsWith('dist/bench/'))).toEqual([]);
  });

  it('type-checks the example against the package declarations', () => {
    expect(`${typecheck.stdout}${typecheck.stderr}`).toBe('');
    expect(typecheck.status).toBe(0);
  });

  it('runs a TypeScript pipeline that imports the package with the installed thund command, as its YAML twin runs', () => {
    const thund = join(project, 'node_modules/.bin/thund');
    const [fromTs, fromYaml] = ['ts', 'yaml'].map((kind) => check(`thund run cdc/pipeline.${kind}`, run(thund, ['run', `cdc/pipeline.${kind}`, '--warehouse', `cdc-${kind}`], project)));
    const lines = (text: string): string[] => text.replace(/ \(snapshot \d+\)/g, '').replace(/cdc-(ts|yaml)/g, 'cdc-warehouse').trim().split('\n');
    expect(lines(fromTs!)).toEqual(lines(fromYaml!));
    expect(fromTs).toMatch(/lake\.customers_history — [1-9]\d* rows read, [1-9]\d* rows written/);
  });

  it('runs the pipeline and the table operations, and reads the rows back as Arrow', () => {
    const lines = output.trim().split('\n');
    expect(lines).toContain(`load_orders: ${INPUT.length} rows written to lake.orders`);
    expect(lines).toContain('appended 1 row(s)');
    expect(lines).toContain('upserted 1 row(s)');
    expect(lines).toContain(`lake.orders: ${EXPECTED.length} rows`);
    const rows = JSON.parse(lines.at(-1)!) as typeof EXPECTED;
    expect([...rows].sort((a, b) => a.id - b.id)).toEqual(EXPECTED);
  });

  it('wrote a table pyiceberg reads with the same rows', async () => {
    const table: PyicebergTable = await readWithPyiceberg({
      catalogDb: join(warehouse, 'catalog.db'),
      warehouse: pathToFileURL(warehouse).href,
      catalogName: 'default',
      table: 'lake.orders',
    });
    expect(table.rowCount).toBe(EXPECTED.length);
    const rows = table.rows.map((row) => ({ id: Number(row['id']), customer: row['customer'], amount: Number(row['amount']) }));
    expect(rows.sort((a, b) => a.id - b.id)).toEqual(EXPECTED);
  }, 300_000);
});

describe('the README example', () => {
  it('is examples/library/orders.ts, the program the package test runs', () => {
    const example = readFileSync(EXAMPLE, 'utf8');
    const code = example.slice(example.indexOf("import { tableFromArrays }"));
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toContain(`\`\`\`ts\n${code}\`\`\``);
  });
});
