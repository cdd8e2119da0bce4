/**
 * Builds docker/Dockerfile unchanged and runs the image for real: the default command prints the
 * usage; the image's size is printed and bounded; `thund serve` in it turns healthy by the
 * image's HEALTHCHECK and stops on SIGTERM (tini passes it on) well within a grace period; and the
 * quickstart pipeline run on a read-only root filesystem writes a table that the host's CLI reads
 * back with the same row count DuckDB counts in the source Parquet.
 *
 * Heavy (a Docker engine, an image build with a native compile): its own lane,
 * `npm run test:docker-image` (about 10 min cold, 2 min warm). Without DOCKER_HOST it starts a private engine with
 * test/docker/engine.sh (root; see DESIGN.md "Docker here"); containers use --network host.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspect } from '../e2e/cli.js';
import { expectOk, REPO, timedRunner } from './engine.js';

const IMAGE = 'thund:image-test';
const BUILD_TIMEOUT_MS = 30 * 60_000;
/** Bounds that catch a heavy dependency or build tools slipping into the image. */
const MAX_NODE_MODULES_MIB = 400;
const MAX_IMAGE_MIB = 1_000;

const runner = timedRunner();
const docker = (args: readonly string[], timeout?: number) => runner.docker(args, timeout);

describe('docker/Dockerfile image', () => {
  beforeAll(() => {
    expectOk(docker(['build', '--network', 'host', '-f', 'docker/Dockerfile', '-t', IMAGE, '.'], BUILD_TIMEOUT_MS), 'docker build');
  }, BUILD_TIMEOUT_MS + 15 * 60_000);

  afterAll(() => {
    console.log(`docker image test timings:\n  ${runner.timings.join('\n  ')}`);
  });

  it('prints the usage by default and runs as a non-root user', () => {
    const help = docker(['run', '--rm', '--network', 'host', IMAGE], 120_000);
    expectOk(help, 'docker run (default command)');
    expect(help.stdout).toMatch(/^Usage:/m);
    expect(help.stdout).toContain('thund run <pipeline.yaml>');
    const user = docker(['image', 'inspect', '--format', '{{.Config.User}}', IMAGE], 60_000);
    expectOk(user, 'docker image inspect');
    expect(user.stdout.trim()).not.toMatch(/^(root|0)?(:|$)/);
  }, 300_000);

  it('runs on the Node LTS release its base names, the newest line the package supports', () => {
    const base = /^FROM\s+node:(\d+)-/m.exec(readFileSync(join(REPO, 'docker/Dockerfile'), 'utf8'))?.[1];
    const version = docker(['run', '--rm', '--network', 'host', '--entrypoint', 'node', IMAGE, '--version'], 120_000);
    expectOk(version, 'docker run node --version');
    console.log(`docker image ${IMAGE}: node ${version.stdout.trim()}`);
    expect(base).toBeDefined();
    expect(version.stdout.trim()).toMatch(new RegExp(`^v${base}\\.`));
    expect(Number(base) % 2).toBe(0);
  }, 300_000);

  it('is small: its size and its node_modules are printed and bounded', () => {
    const size = docker(['image', 'inspect', '--format', '{{.Size}}', IMAGE], 60_000);
    expectOk(size, 'docker image inspect (size)');
    const modules = docker(['run', '--rm', '--network', 'host', '--entrypoint', 'du', IMAGE, '-sm', '/app/node_modules'], 120_000);
    expectOk(modules, 'docker run du (node_modules)');
    const imageMiB = Number(size.stdout.trim()) / 2 ** 20;
    const modulesMiB = Number(modules.stdout.trim().split(/\s+/)[0]);
    console.log(`docker image ${IMAGE}: ${imageMiB.toFixed(0)} MiB, of which /app/node_modules ${modulesMiB} MiB`);
    expect(modulesMiB).toBeGreaterThan(20);
    expect(modulesMiB).toBeLessThan(MAX_NODE_MODULES_MIB);
    expect(imageMiB).toBeLessThan(MAX_IMAGE_MIB);
  }, 300_000);

  it('serves until SIGTERM: healthy by its HEALTHCHECK, stopped cleanly well within the grace period', () => {
    const dir = mkdtempSync(join(tmpdir(), 'thund-image-serve-'));
    const name = `thund-image-serve-${process.pid}`;
    try {
      chmodSync(dir, 0o777);
      writeFileSync(
        join(dir, 'pipeline.yaml'),
        `pipeline: image_serve\ncatalog: { type: sql, warehouse: ${dir}/warehouse }\nsources:\n  orders: { format: parquet, path: /app/examples/quickstart/data/orders.parquet }\ntables:\n  lake.orders:\n    kind: streaming_table\n    sql: SELECT * FROM STREAM(orders)\n`,
      );
      const port = String(20_000 + (process.pid % 20_000));
      const started = docker(
        ['run', '-d', '--name', name, '--network', 'host', '--read-only', '-v', `${dir}:${dir}`, '--health-interval=1s', '--health-start-period=120s', IMAGE,
          'serve', join(dir, 'pipeline.yaml'), '--http-port', port, '--trigger-interval-ms', '1000'],
        120_000,
      );
      expectOk(started, 'docker run -d thund serve');
      const deadline = Date.now() + 180_000;
      let health = '';
      while (health !== 'healthy' && Date.now() < deadline) {
        spawnSync('sleep', ['1']);
        health = docker(['inspect', '--format', '{{.State.Health.Status}}', name], 60_000).stdout.trim();
      }
      expect(health, docker(['logs', name], 60_000).stdout).toBe('healthy');
      const stopStarted = Date.now();
      expectOk(docker(['stop', '--time', '30', name], 120_000), 'docker stop');
      const stopSeconds = (Date.now() - stopStarted) / 1000;
      console.log(`docker stop of thund serve: ${stopSeconds.toFixed(1)} s`);
      expect(stopSeconds).toBeLessThan(15);
      expect(docker(['inspect', '--format', '{{.State.ExitCode}}', name], 60_000).stdout.trim()).toBe('0');
      expect(docker(['logs', name], 60_000).stdout).toContain('"msg":"thund serve stopped"');
    } finally {
      docker(['rm', '-f', name], 60_000);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('carries production dependencies only', () => {
    // One container answers for all names: each docker run costs ~15-40 s on the vfs engine.
    const names = ['@duckdb/node-api', 'better-sqlite3', 'typescript', 'vitest'];
    const script = `const found = {}; for (const n of ${JSON.stringify(names)}) { try { require.resolve(n + '/package.json', { paths: ['/app'] }); found[n] = true; } catch { found[n] = false; } } console.log(JSON.stringify(found));`;
    const result = docker(['run', '--rm', '--network', 'host', '--entrypoint', 'node', IMAGE, '-e', script], 240_000);
    expectOk(result, 'docker run node -e (dependency probe)');
    expect(JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}')).toEqual({
      '@duckdb/node-api': true,
      'better-sqlite3': true,
      typescript: false,
      vitest: false,
    });
  }, 300_000);

  it('runs the Kafka consumer of thund serve in its worker thread', () => {
    // Nothing listens on port 9: the worker module loads from dist, kafkajs runs in it, gives up
    // connecting, and its error reaches the main thread with kafkajs's own name and reason.
    const script = [
      "const { WorkerConsumerClient } = await import('/app/dist/connectors/kafka/worker-consumer-client.js');",
      "const client = new WorkerConsumerClient({ brokers: ['127.0.0.1:9'], groupId: 'image-probe' });",
      'try { await client.start(["probe"], { onBatch() {}, onAssignment() {}, onFailure() {} }); console.log("{}"); }',
      'catch (error) { console.log(JSON.stringify({ name: error.name, message: error.message })); }',
      'await client.stop();',
    ].join('\n');
    const result = docker(['run', '--rm', '--network', 'host', '--entrypoint', 'node', IMAGE, '--input-type=module', '-e', script], 240_000);
    expectOk(result, 'docker run node (Kafka consumer worker probe)');
    expect(JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}')).toEqual({ name: 'KafkaJSNumberOfRetriesExceeded', message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9' });
  }, 300_000);

  it('runs the quickstart pipeline on a read-only root filesystem; the host reads the table it wrote', async () => {
    const warehouse = mkdtempSync(join(tmpdir(), 'thund-image-wh-'));
    try {
      chmodSync(warehouse, 0o777); // the container user (not root) writes here
      const result = docker(
        // Mounted at the same path, so the file:// locations in the catalog resolve on the host too.
        // --read-only: the root filesystem stays unwritten; /data and /tmp are the image's volumes.
        ['run', '--rm', '--network', 'host', '--read-only', '-v', `${warehouse}:${warehouse}`, IMAGE, 'run', '/app/examples/quickstart/pipeline.yaml', '--warehouse', warehouse],
        300_000,
      );
      expectOk(result, 'docker run thund run quickstart');

      // Written by the image's user, not root.
      const catalogDb = readdirSync(warehouse).find((name) => name.endsWith('.db'));
      expect(catalogDb).toBeDefined();
      expect(statSync(join(warehouse, catalogDb ?? '')).uid).not.toBe(0);

      // The host's CLI reads the table; DuckDB on the host counts the source rows.
      const instance = await DuckDBInstance.create();
      const connection = await instance.connect();
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::BIGINT AS n FROM read_parquet('${join(REPO, 'examples/quickstart/data/orders.parquet')}')`,
      );
      const expected = Number(reader.getRowObjects()[0]?.['n']);
      connection.closeSync();
      instance.closeSync();
      const report = inspect('lake.orders', warehouse);
      expect(Number(report.rowCount)).toBe(expected);
      expect(report.snapshots).toHaveLength(1);
      expect(report.snapshots[0]?.summary['added-records']).toBe(String(expected));
    } finally {
      rmSync(warehouse, { recursive: true, force: true });
    }
  }, 600_000);
});
