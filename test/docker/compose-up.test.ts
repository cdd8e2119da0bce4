/**
 * docker/compose.yaml run for real, unchanged, with the README's commands, on a Docker engine:
 * `up -d --build --wait` (MinIO and Thund built from their Dockerfiles; the REST catalog, Kafka and
 * Trino from the images test/docker/stack-images.ts makes under the upstream names when no
 * registry serves them), the quickstart through the `thund` service, the Debezium topic of
 * examples/kafka_cdc produced from the host and landed by `thund-serve`, Trino reading both
 * tables equal to DuckDB's reference queries, then `down -v`.
 *
 * The private engine has no bridge network, so the test adds compose-host-network.ts's override
 * (host networking, loopback names); the users' file is not changed. Heavy: `npm run
 * test:containers` (see the README for its time).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTrinoRows } from '../trino/trino-rows.js';
import { COMPOSE_HOST_PORTS, hostNetworkOverride } from './compose-host-network.js';
import { expectOk, REPO, timedRunner } from './engine.js';
import { ensureStackImages } from './stack-images.js';

const PROJECT = 'thund-compose-test';
const TRINO = `http://127.0.0.1:${COMPOSE_HOST_PORTS.trino}`;
const KAFKA = `127.0.0.1:${COMPOSE_HOST_PORTS.kafka}`;
const UP_TIMEOUT_MS = 45 * 60_000;
const LANDED_TIMEOUT_MS = 240_000;

// The reference queries' module reads the test stack's Kafka address when it loads.
process.env['THUND_TEST_KAFKA_BROKERS'] ??= KAFKA;
const { comparableRows, referenceRows, scd1Reference, scd2Reference } = await import('../integration/kafka-pipelines/debezium-topic.js');

const runner = timedRunner();
let work = '';
let compose = '';
let override = '';

function composeRun(args: readonly string[], timeout = 600_000): ReturnType<typeof runner.run> {
  return runner.run(compose, ['-f', 'docker/compose.yaml', '-f', override, '-p', PROJECT, ...args], { timeout, label: `docker compose ${args.join(' ')}` });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function trinoRows(sql: string, columns: readonly string[]): Promise<unknown[][]> {
  const { rows } = await queryTrinoRows(TRINO, sql);
  return comparableRows(rows.map((row) => columns.map((column) => row[column])));
}

describe('docker/compose.yaml on a Docker engine', () => {
  beforeAll(async () => {
    const busy: number[] = [];
    for (const port of Object.values(COMPOSE_HOST_PORTS)) if (!(await portFree(port))) busy.push(port);
    if (busy.length > 0) throw new Error(`the compose stack listens on the host's ports and ${busy.join(', ')} ${busy.length === 1 ? 'is' : 'are'} taken: stop what listens there`);
    const cli = runner.run('bash', ['test/docker/compose-cli.sh'], { timeout: 15 * 60_000 });
    expectOk(cli, 'test/docker/compose-cli.sh');
    compose = cli.stdout.trim();
    await ensureStackImages(['iceberg-rest-fixture', 'kafka', 'trino', 'debian', 'golang']);
    work = mkdtempSync(join(tmpdir(), 'thund-compose-'));
    override = join(work, 'compose.host-network.yaml');
    writeFileSync(override, hostNetworkOverride());
    composeRun(['down', '-v', '--remove-orphans']); // what an interrupted earlier run left
  }, UP_TIMEOUT_MS);

  afterAll(() => {
    if (override !== '') {
      const down = composeRun(['down', '-v', '--remove-orphans']);
      if (down.status !== 0) console.error(`compose down -v failed:\n${down.stderr}`);
      rmSync(work, { recursive: true, force: true });
    }
    console.log(`compose test timings:\n  ${runner.timings.join('\n  ')}`);
  }, 600_000);

  it('up -d --build --wait: every service running, the ones with a healthcheck healthy', () => {
    expectOk(composeRun(['up', '-d', '--build', '--wait'], UP_TIMEOUT_MS), 'docker compose up -d --build --wait');
    const ps = composeRun(['ps', '--format', 'json']);
    expectOk(ps, 'docker compose ps');
    const services = ps.stdout
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { Service: string; State: string; Health: string });
    expect(Object.fromEntries(services.map((s) => [s.Service, `${s.State}${s.Health === '' ? '' : `/${s.Health}`}`]))).toEqual({
      minio: 'running/healthy',
      rest: 'running/healthy',
      kafka: 'running/healthy',
      trino: 'running/healthy',
      'thund-serve': 'running/healthy',
    });
  }, UP_TIMEOUT_MS);

  it('runs the quickstart through the thund service into the REST catalog, and Trino reads it', async () => {
    expectOk(composeRun(['run', '--rm', 'thund']), 'docker compose run --rm thund');
    const instance = await DuckDBInstance.create();
    const connection = await instance.connect();
    const reference = await connection.runAndReadAll(
      `SELECT count(*)::BIGINT AS n, sum(CAST(amount_cents * 0.01 AS DECIMAL(12, 2)))::VARCHAR AS total, count(DISTINCT customer)::BIGINT AS customers
       FROM read_parquet('${join(REPO, 'examples/quickstart/data/orders.parquet')}')`,
    );
    const [expected] = reference.getRowObjectsJson();
    connection.closeSync();
    instance.closeSync();
    const { rows } = await queryTrinoRows(TRINO, 'SELECT count(*) AS n, CAST(sum(amount) AS VARCHAR) AS total, count(DISTINCT customer_name) AS customers FROM iceberg.lake.orders');
    expect(rows).toEqual([{ n: Number(expected?.['n']), total: expected?.['total'], customers: Number(expected?.['customers']) }]);
    expect(Number(expected?.['n'])).toBeGreaterThan(0);
  }, 900_000);

  it("lands examples/kafka_cdc's topic through thund-serve: Trino reads the SCD1 table and the SCD2 history", async () => {
    for (const part of [0, 1, 2, 3]) {
      const produced = runner.run('npx', ['tsx', 'examples/kafka_cdc/produce-changes.ts', '--part', String(part)], { timeout: 300_000, env: { THUND_KAFKA_BROKERS: KAFKA } });
      expectOk(produced, `examples/kafka_cdc/produce-changes.ts --part ${part}`);
    }
    const all = [0, 1, 2, 3];
    const current = comparableRows(await referenceRows(scd1Reference(all)));
    const history = comparableRows(await referenceRows(scd2Reference(all)));
    const deadline = Date.now() + LANDED_TIMEOUT_MS;
    let seen: unknown[][] = [];
    while (Date.now() < deadline) {
      try {
        seen = await trinoRows('SELECT id, name, email, tier FROM iceberg.lake.customers', ['id', 'name', 'email', 'tier']);
      } catch {
        seen = []; // the table is not there before serve's first commit
      }
      if (JSON.stringify(seen) === JSON.stringify(current)) break;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    expect(seen).toEqual(current);
    const landedHistory = await trinoRows('SELECT id, name, email, tier, "__START_AT", "__END_AT" FROM iceberg.lake.customers_history', ['id', 'name', 'email', 'tier', '__START_AT', '__END_AT']);
    expect(landedHistory).toEqual(history);
    expect(history.length).toBeGreaterThan(current.length);
  }, 900_000);

  it("answers the README's Trino command inside the stack", () => {
    const result = composeRun(['exec', '-T', 'trino', 'trino', '--execute', 'SHOW TABLES FROM iceberg.lake']);
    expectOk(result, 'docker compose exec trino trino --execute');
    expect(result.stdout.split('\n').map((line) => line.replace(/"/g, '').trim()).filter((line) => line !== '').sort()).toEqual(['customers', 'customers_history', 'orders']);
  }, 300_000);
});
