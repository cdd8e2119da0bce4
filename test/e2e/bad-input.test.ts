/**
 * Bad input through the CLI: each failure is one clear line naming what is wrong and where,
 * exits non-zero, and changes nothing in the catalog (no table, no new snapshot, no data files).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO, filesUnder, inspect, thund, type CliResult } from './cli.js';

const INPUT = join(REPO, 'examples/quickstart/data/orders.parquet');

let work: string;
let warehouse: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-bad-input-'));
  warehouse = join(work, 'warehouse');
  mkdirSync(join(work, 'data'));
  copyFileSync(INPUT, join(work, 'data/orders.parquet'));
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

function spec(sql: string, options: { path?: string; table?: string } = {}): string {
  const file = join(work, `pipeline-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    [
      'pipeline: bad-input',
      'sources:',
      '  orders:',
      '    format: parquet',
      `    path: ${options.path ?? 'data/orders.parquet'}`,
      'tables:',
      `  ${options.table ?? 'lake.orders'}:`,
      '    mode: append',
      'flows:',
      '  load_orders:',
      `    target: ${options.table ?? 'lake.orders'}`,
      `    sql: ${sql}`,
      '',
    ].join('\n'),
  );
  return file;
}

function expectFailureWithoutChanges(args: string[], ...messageParts: (string | RegExp)[]): string {
  return expectRefusedWithoutChanges(thund(args), ...messageParts);
}

function expectRefusedWithoutChanges(result: CliResult, ...messageParts: (string | RegExp)[]): string {
  expect(result.status).not.toBe(0);
  expect(result.stdout).toBe('');
  const firstLine = result.stderr.split('\n')[0] ?? '';
  for (const part of messageParts) expect(firstLine).toMatch(part);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(filesUnder(warehouse).filter((file) => file !== 'catalog.db')).toEqual([]);
  return firstLine;
}

describe('thund run with bad input', () => {
  it('names a pipeline file that does not exist', () => {
    expectFailureWithoutChanges(['run', join(work, 'nope.yaml'), '--warehouse', warehouse], /nope\.yaml/);
  });

  it('names the line and field of a YAML error', () => {
    const file = join(work, 'broken.yaml');
    writeFileSync(file, 'pipeline: x\nsources:\n  orders:\n    format: parquet\n    path: [unclosed\n');
    expectFailureWithoutChanges(['run', file, '--warehouse', warehouse], /broken\.yaml:\d+:\d+/);
    writeFileSync(file, 'pipeline: x\nsources:\n  orders:\n    format: csv\n    path: a.parquet\ntables: {}\nflows: {}\n');
    expectFailureWithoutChanges(['run', file, '--warehouse', warehouse], /broken\.yaml:4:\d+/, /format/);
  });

  it('names a source whose files are missing', () => {
    expectFailureWithoutChanges(['run', spec('SELECT * FROM orders', { path: 'data/missing-*.parquet' }), '--warehouse', warehouse], /orders/, /missing-\*\.parquet/);
  });

  it('names the flow whose SQL is wrong', () => {
    expectFailureWithoutChanges(['run', spec('SELECT no_such_column FROM orders'), '--warehouse', warehouse], /flow "load_orders"/i, /no_such_column/);
  });

  it('names the flow when its SQL fails while rows are written', () => {
    expectFailureWithoutChanges(
      ['run', spec("SELECT id, CAST(CASE WHEN id > 500 THEN 'x' ELSE '1' END AS INTEGER) AS n FROM orders"), '--warehouse', warehouse],
      /load_orders/,
    );
  });

  it('names a column whose type Iceberg cannot represent', () => {
    expectFailureWithoutChanges(['run', spec('SELECT id, INTERVAL 1 DAY AS wait_time FROM orders'), '--warehouse', warehouse], /wait_time/, /INTERVAL/i);
  });

  it('refuses to write into a table whose schema does not fit, leaving it as it was', () => {
    const good = spec('SELECT CAST(id AS BIGINT) AS order_id, customer FROM orders');
    expect(thund(['run', good, '--warehouse', warehouse]).status).toBe(0);
    const before = inspect('lake.orders', warehouse);
    const filesBefore = filesUnder(warehouse);

    const result = thund(['run', spec('SELECT id::VARCHAR AS order_id, customer FROM orders'), '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/lake\.orders/);
    expect(result.stderr).toMatch(/order_id/);
    const after = inspect('lake.orders', warehouse);
    expect(after.metadataLocation).toBe(before.metadataLocation);
    expect(after.snapshots).toHaveLength(1);
    expect(filesUnder(warehouse)).toEqual(filesBefore);
  });

  it('creates no namespace when the run that needed it failed', () => {
    const result = thund(['run', spec("SELECT CAST('x' || id AS INTEGER) AS n FROM orders", { table: 'fresh.t' }), '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(thund(['inspect', 'fresh.t', '--warehouse', warehouse]).stderr).toMatch(/fresh/);
    expect(filesUnder(warehouse).filter((file) => file !== 'catalog.db')).toEqual([]);
  });
});

describe('thund run with SQL that is not one query', () => {
  const refusals = {
    insert: 'INSERT INTO orders VALUES (1)',
    create: 'CREATE TABLE copy AS SELECT * FROM orders',
    copy: "COPY orders TO 'out.csv'",
    drop: 'DROP TABLE orders',
    attach: "ATTACH 'other.db'",
    pragma: 'PRAGMA version',
    set: 'SET threads = 1',
    explain: 'EXPLAIN SELECT * FROM orders',
  };
  for (const [kind, sql] of Object.entries(refusals)) {
    it(`refuses ${kind} with the flow, file and line named`, () => {
      const file = spec(`"${sql}"`);
      const line = expectFailureWithoutChanges(['run', file, '--warehouse', warehouse], /pipeline-\w+\.yaml:12:\d+/, /flow "load_orders"/, /one query/);
      expect(line).not.toMatch(/serialized|Parser Error|Catalog Error/i);
    });
  }

  it('refuses several statements, even when each is a SELECT', () => {
    expectFailureWithoutChanges(['run', spec('"SELECT id FROM orders; SELECT 2"'), '--warehouse', warehouse], /flow "load_orders"/, /2 statements/);
    expectFailureWithoutChanges(['run', spec('"SELECT id FROM orders; DROP TABLE orders"'), '--warehouse', warehouse], /flow "load_orders"/, /2 statements/);
  });

  it('refuses SQL that is only a comment', () => {
    expectFailureWithoutChanges(['run', spec('"-- nothing here"'), '--warehouse', warehouse], /flow "load_orders"/, /no query/);
  });

  it('refuses a view and a sink flow that are not queries, naming them', () => {
    const file = join(work, 'views.yaml');
    writeFileSync(
      file,
      [
        'pipeline: bad-input',
        'sources:',
        '  orders: { format: parquet, path: data/orders.parquet }',
        'views:',
        '  recent:',
        "    sql: DELETE FROM orders",
        'sinks:',
        '  alerts: { format: kafka, options: { topic: alerts, bootstrap_servers: "127.0.0.1:1" } }',
        'flows:',
        '  export_alerts: { target: alerts, sql: "COPY orders TO \'x.csv\'" }',
        '',
      ].join('\n'),
    );
    const result = thund(['validate', file]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/views\.yaml:6:\d+ THUND_E_SQL_SYNTAX view "recent": .*one query/);
    expect(result.stdout).toMatch(/views\.yaml:10:\d+ THUND_E_SQL_SYNTAX flow "export_alerts": .*one query/);
  });
});

describe('thund serve with flow SQL that is not one query', () => {
  it('refuses --sql that is not a query before connecting to Kafka', () => {
    const file = join(work, 'serve.yaml');
    writeFileSync(file, 'pipeline: serve-bad-input\nsources: {}\ntables: {}\nflows: {}\n');
    const args = ['serve', file, '--kafka-brokers', '127.0.0.1:1', '--topic', 't', '--group', 'g', '--table', 'lake.t', '--warehouse', warehouse];
    for (const [sql, message] of [
      ['COPY kafka_records TO \'x.csv\'', /not a query/],
      ['SELECT * FROM kafka_records; DROP TABLE x', /2 statements/],
    ] as const) {
      const line = expectRefusedWithoutChanges(thund([...args, '--sql', sql]), /--sql/, message, /one query/);
      expect(line).not.toMatch(/serialized|Parser Error/i);
    }
  });
});

describe('thund serve on a pipeline file', () => {
  it('refuses a file without flows, naming both ways to serve', () => {
    const file = join(work, 'serve-empty.yaml');
    writeFileSync(file, 'pipeline: serve-empty\nsources: {}\ntables: {}\nflows: {}\n');
    expectRefusedWithoutChanges(thund(['serve', file, '--warehouse', warehouse]), /serve-empty\.yaml has no flows/, /--topic and --table/);
  });

  it('refuses flags of the single-topic mode beside a pipeline with flows, and a bad trigger interval', () => {
    const file = join(work, 'serve-flows.yaml');
    writeFileSync(file, 'pipeline: serve-flows\nsources:\n  events: { format: kafka, topic: events, bootstrap_servers: "127.0.0.1:1" }\ntables:\n  lake.events: { kind: streaming_table, sql: SELECT * FROM STREAM(events) }\n');
    expectRefusedWithoutChanges(thund(['serve', file, '--warehouse', warehouse, '--group', 'g', '--commit-records', '5']), /--group, --commit-records belong to serving one topic into one table/);
    expectRefusedWithoutChanges(thund(['serve', file, '--warehouse', warehouse, '--trigger-interval-ms', '5']), /--trigger-interval-ms \(or THUND_SERVE_TRIGGER_INTERVAL_MS\): /);
  });
});

describe('thund run with bad names and variables', () => {
  it('names a source path variable that is not set, with file and line', () => {
    const file = spec('SELECT id FROM orders', { path: '${THUND_NO_SUCH_VARIABLE}/orders.parquet' });
    const line = expectRefusedWithoutChanges(thund(['run', file, '--warehouse', warehouse]), /pipeline-\w+\.yaml:5:\d+/, /THUND_NO_SUCH_VARIABLE/, /not set/);
    expect(line).toMatch(/sources\.orders\.path/);
  });

  it('refuses a table name too long for a folder before creating anything', () => {
    const long = `lake.${'t'.repeat(300)}`;
    expectFailureWithoutChanges(['run', spec('SELECT id FROM orders', { table: long }), '--warehouse', warehouse], /lake\.t+/, /too long: 300 characters, at most 200/);
    expect(filesUnder(warehouse)).toEqual([]);
    expect(existsSync(warehouse)).toBe(false);
  });

  it('refuses a namespace name too long for a folder', () => {
    const long = `${'n'.repeat(260)}.orders`;
    expectFailureWithoutChanges(['run', spec('SELECT id FROM orders', { table: long }), '--warehouse', warehouse], /too long/);
    expect(existsSync(warehouse)).toBe(false);
  });
});

describe('thund inspect with bad input', () => {
  it('names a table that does not exist', () => {
    const result = thund(['inspect', 'lake.nothing', '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/lake\.nothing/);
  });

  it('refuses a warehouse folder that does not exist, creating nothing', () => {
    const missing = join(work, 'no-such-warehouse');
    const result = thund(['inspect', 'lake.orders', '--warehouse', missing]);
    expect(result.status).not.toBe(0);
    expect(result.stderr.split('\n')[0]).toMatch(/lake\.orders.*no-such-warehouse/);
    expect(existsSync(missing)).toBe(false);
  });

  it('plan --state on a warehouse that does not exist says nothing ran, creating nothing', () => {
    const missing = join(work, 'no-such-warehouse');
    const result = thund(['plan', spec('SELECT id FROM orders'), '--state', '--warehouse', missing]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/state \(the warehouse .*no-such-warehouse does not exist.*\):\n {2}lake\.orders: stale: never run/);
    expect(existsSync(missing)).toBe(false);
  });

  it('rejects a name without a namespace', () => {
    const result = thund(['inspect', 'orders', '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/namespace\.table/);
  });
});

describe('thund run with forgiving input', () => {
  it('accepts flow SQL that ends with a comment', () => {
    const result = thund(['run', spec('|\n      SELECT id FROM orders -- every order\n      -- and a last word'), '--warehouse', warehouse]);
    expect(result.stderr).toBe('');
    expect(Number(inspect('lake.orders', warehouse).rowCount)).toBe(Number(inspect('lake.orders', warehouse).dataFiles[0]?.recordCount));
    expect(Number(inspect('lake.orders', warehouse).rowCount)).toBeGreaterThan(0);
  });

  it('accepts flow SQL with several trailing semicolons, comments and strings holding ; and --', () => {
    const sql = "|\n      SELECT id, ';--' AS odd /* ; */ FROM orders; -- done;\n      ;  /* really ; */ ;";
    const result = thund(['run', spec(sql), '--warehouse', warehouse]);
    expect(result.stderr).toBe('');
    expect(Number(inspect('lake.orders', warehouse).rowCount)).toBeGreaterThan(0);
  });

  it('accepts WITH, VALUES, FROM-first and set operations as queries', () => {
    for (const sql of ['"WITH o AS (SELECT id FROM orders) SELECT id FROM o"', '"VALUES (1), (2)"', '"FROM orders SELECT id"', '"SELECT id FROM orders UNION ALL SELECT id FROM orders"']) {
      const result = thund(['run', spec(sql), '--warehouse', warehouse]);
      expect(result.stderr, sql).toBe('');
    }
    expect(inspect('lake.orders', warehouse).snapshots).toHaveLength(4);
  });

  it('expands ${NAME} in source paths', () => {
    const result = thund(['run', spec('SELECT id FROM orders', { path: '${THUND_TEST_DATA}/orders.parquet' }), '--warehouse', warehouse], REPO, {
      THUND_TEST_DATA: join(work, 'data'),
    });
    expect(result.stderr).toBe('');
    expect(Number(inspect('lake.orders', warehouse).rowCount)).toBeGreaterThan(0);
  });

  it('accepts flow SQL that ends with a semicolon', () => {
    const result = thund(['run', spec('"SELECT id FROM orders;  "'), '--warehouse', warehouse]);
    expect(result.stderr).toBe('');
    expect(Number(inspect('lake.orders', warehouse).rowCount)).toBeGreaterThan(0);
  });
});

describe('help', () => {
  for (const command of ['run', 'serve', 'validate', 'plan', 'lower', 'inspect']) {
    for (const flag of ['--help', '-h']) {
      it(`thund ${command} ${flag} prints its usage and exits 0`, () => {
        const result = thund([command, flag]);
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
        expect(result.stdout).toMatch(new RegExp(`thund ${command} `));
      });
    }
  }
});
