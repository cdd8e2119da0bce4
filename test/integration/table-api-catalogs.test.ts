/**
 * The package API's table operations through each remote catalog of the test stack, opened from
 * code as a user would: `openCatalog` with the `catalog` and `storage` blocks a pipeline spec
 * has (addresses as `${NAME}`, keys by variable name). Through the Iceberg REST fixture, Nessie's
 * Iceberg REST endpoint and Glue (moto), files in MinIO: an Arrow append, an upsert by key from a
 * DuckDB query, a delete by condition, the rows of the current and the first snapshot, the table
 * listed, its files really in the bucket, and for REST pyiceberg reading the same rows. Nessie's
 * metadata keeps only the current snapshot, so there the first one is refused by name.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { openCatalog as openOpenedCatalog } from '../../src/app/open-catalog.js';
import { connectionFromConfig } from '../../src/app/connection-config.js';
import { InvalidInputError, NoSuchTableError, openCatalog, ThundError, type CatalogConfig, type ConnectionConfig } from '../../src/index.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { stackRestReadTarget } from '../interop/read-table-output.js';
import { TEST_S3_STORAGE_CONFIG, testS3Bucket } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { objectsUnder } from './behaviour/s3-objects.js';
import { REST_SERVERS, restServerUri, type RestServerUnderTest } from './rest-support/rest-servers.js';

const RUN = randomUUID().replaceAll('-', '').slice(0, 10);

interface CatalogUnderTest {
  readonly name: string;
  /** The variables its blocks name: checked first, so a missing service fails the test loudly. */
  readonly variables: readonly string[];
  readonly catalog: CatalogConfig;
  /** Read back by pyiceberg through the same REST server. */
  readonly rest?: RestServerUnderTest;
  readonly currentSnapshotOnly?: boolean;
}

const S3_VARIABLES = ['THUND_TEST_S3_ENDPOINT', 'THUND_TEST_S3_REGION', 'THUND_TEST_S3_ACCESS_KEY', 'THUND_TEST_S3_SECRET_KEY', 'THUND_TEST_S3_BUCKET'];

const restUnderTest = (server: RestServerUnderTest): CatalogUnderTest => ({
  name: `REST (${server.name})`,
  variables: [server.uriVariable, ...S3_VARIABLES],
  catalog: { type: 'rest', uri: `\${${server.uriVariable}}`, ...(server.warehouse === undefined ? {} : { warehouse: server.warehouse }) },
  rest: server,
  currentSnapshotOnly: server.differences?.currentSnapshotOnly === true,
});

const GLUE: CatalogUnderTest = {
  name: 'Glue (moto)',
  variables: ['THUND_TEST_GLUE_ENDPOINT', 'THUND_TEST_AWS_REGION', 'THUND_TEST_AWS_ACCESS_KEY', 'THUND_TEST_AWS_SECRET_KEY', ...S3_VARIABLES],
  catalog: {
    type: 'glue',
    warehouse: `s3://\${THUND_TEST_S3_BUCKET}/it-table-api/${RUN}`,
    region: '${THUND_TEST_AWS_REGION}',
    endpoint: '${THUND_TEST_GLUE_ENDPOINT}',
    access_key_id_env: 'THUND_TEST_AWS_ACCESS_KEY',
    secret_access_key_env: 'THUND_TEST_AWS_SECRET_KEY',
  },
};

const CATALOGS: readonly CatalogUnderTest[] = [...REST_SERVERS.map(restUnderTest), GLUE];

type Row = Record<string, unknown>;

const sortedRows = (table: Table): Row[] => table.toArray().map((row: { toJSON(): Row }) => row.toJSON()).sort((a, b) => Number(a['id']) - Number(b['id']));

/** Drops the table with its files and then its namespace, through the same blocks (best effort: the test's own failure matters more). */
async function dropAll(config: ConnectionConfig, namespace: string, tables: readonly string[]): Promise<void> {
  const opened = await openOpenedCatalog(connectionFromConfig(config));
  try {
    for (const name of tables) await opened.catalog.dropTable({ namespace: [namespace], name }, true).catch(() => undefined);
    await opened.catalog.dropNamespace([namespace]).catch(() => undefined);
  } finally {
    await opened.close();
  }
}

let namespaces = 0;
const uniqueNamespace = (): string => `table_api_${RUN}_${(namespaces += 1)}`;

// A loop, not describe.each: each's $name would quote the name in the test's title.
for (const under of CATALOGS) describe(`the table API through openCatalog on ${under.name}, files in MinIO`, () => {
  it('appends Arrow, upserts by key from a DuckDB query, deletes by condition, and reads the current and the first snapshot back', async () => {
    for (const variable of under.variables) requireServiceEnv(variable);
    const config: ConnectionConfig = { catalog: under.catalog, storage: TEST_S3_STORAGE_CONFIG };
    const namespace = uniqueNamespace();
    const lake = await openCatalog(config);
    try {
      const orders = lake.table(`${namespace}.orders`);
      const appended = await orders.append(
        new Table({ id: vectorFromArray([1n, 2n, 3n], new Int64()), name: vectorFromArray(['a', 'b', 'c'], new Utf8()) }),
      );
      expect(appended).toMatchObject({ addedRows: 3n, created: true });
      const upserted = await orders.upsert({ sql: "SELECT * FROM (VALUES (2::BIGINT, 'B'), (4, 'd')) t(id, name)" }, { keys: ['id'] });
      expect(upserted).toMatchObject({ addedRows: 2n, created: false });
      const deleted = await orders.delete('id = 1');
      expect(deleted.deletedRows).toBe(1n);
      expect(deleted.snapshotId).toBeDefined();

      const current = [
        { id: 2n, name: 'B' },
        { id: 3n, name: 'c' },
        { id: 4n, name: 'd' },
      ];
      expect(sortedRows(await orders.read())).toEqual(current);
      expect(sortedRows(await orders.read({ snapshotId: deleted.snapshotId! }))).toEqual(current);
      expect(sortedRows(await orders.read({ where: "name = 'd'" }))).toEqual([{ id: 4n, name: 'd' }]);
      if (under.currentSnapshotOnly === true) {
        const error = await orders.read({ snapshotId: appended.snapshotId }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidInputError);
        expect((error as Error).message).toBe(
          `Snapshot ${appended.snapshotId} is not in the metadata of table ${namespace}.orders (it keeps 1 snapshot; the current one is ${deleted.snapshotId})`,
        );
      } else {
        expect(sortedRows(await orders.read({ snapshotId: appended.snapshotId }))).toEqual([
          { id: 1n, name: 'a' },
          { id: 2n, name: 'b' },
          { id: 3n, name: 'c' },
        ]);
      }
      expect(await lake.listTables(namespace)).toEqual([{ namespace: [namespace], name: 'orders' }]);

      await expectFilesInBucket(config, namespace);
      if (under.rest !== undefined) await expectPyicebergRows(under.rest, `${namespace}.orders`, current);
    } finally {
      await lake.close();
      await dropAll(config, namespace, ['orders']);
    }
  });
});

/** The table's location is in the stack's bucket, and MinIO's own listing has every live data file and the current metadata file. */
async function expectFilesInBucket(config: ConnectionConfig, namespace: string): Promise<void> {
  const opened = await openOpenedCatalog(connectionFromConfig(config));
  try {
    const loaded = await opened.catalog.loadTable({ namespace: [namespace], name: 'orders' });
    const location = loaded.metadata.location;
    expect(location.startsWith(`s3://${testS3Bucket()}/`), location).toBe(true);
    const stored = new Set(await objectsUnder(location));
    const live = await liveDataFiles(loaded.io, loaded.metadata);
    expect(live.length).toBeGreaterThan(0);
    for (const file of [...live.map((f) => f.filePath), loaded.metadataLocation]) {
      expect(file.startsWith(`${location}/`), file).toBe(true);
      expect(stored.has(file.slice(location.length + 1)), file).toBe(true);
    }
  } finally {
    await opened.close();
  }
}

async function expectPyicebergRows(server: RestServerUnderTest, table: string, rows: readonly Row[]): Promise<void> {
  const read = await readWithPyiceberg({
    rest: stackRestReadTarget(restServerUri(server)),
    catalogName: 'rest',
    table,
    ...(server.warehouse === undefined ? {} : { warehouse: server.warehouse }),
  });
  const byId = [...read.rows].sort((a, b) => Number(a['id']) - Number(b['id']));
  expect(byId).toEqual(rows.map((row) => ({ id: Number(row['id']), name: row['name'] })));
}

/** A local port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('openCatalog refuses a REST catalog it cannot use, saying why and echoing no secret', () => {
  it('a URI where nothing listens: REST_NETWORK naming the URI and the refused connection', async () => {
    const uri = `http://127.0.0.1:${await closedPort()}`;
    const error = await openCatalog({ catalog: { type: 'rest', uri }, storage: TEST_S3_STORAGE_CONFIG }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).code).toBe('REST_NETWORK');
    expect((error as Error).message).toBe(`Cannot open the REST catalog at ${uri}: REST catalog request GET /config failed: fetch failed (ECONNREFUSED)`);
  });

  it('a URI of a live server that is not its catalog root: the server’s HTTP status, naming the URI', async () => {
    const uri = `${requireServiceEnv('THUND_TEST_REST_URI')}/not-the-catalog`;
    const error = await openCatalog({ catalog: { type: 'rest', uri }, storage: TEST_S3_STORAGE_CONFIG }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).code).toBe('REST_400');
    expect((error as ThundError).context).toMatchObject({ uri, path: '/config', status: 400 });
    expect((error as Error).message).toContain(`Cannot open the REST catalog at ${uri}`);
  });

  it('a token variable that is not set: an InvalidInputError naming the variable', async () => {
    const variable = `THUND_IT_UNSET_TOKEN_${RUN.toUpperCase()}`;
    const error = await openCatalog({
      catalog: { type: 'rest', uri: requireServiceEnv('THUND_TEST_REST_URI'), auth: { type: 'bearer', token_env: variable } },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain(variable);
  });

  it('S3 keys that MinIO refuses: the append fails with a ThundError without the secret, and no table is left behind', async () => {
    const secretVariable = `THUND_IT_WRONG_S3_SECRET_${RUN.toUpperCase()}`;
    const secret = `wrong-secret-${randomUUID()}`;
    process.env[secretVariable] = secret;
    const config: ConnectionConfig = {
      catalog: { type: 'rest', uri: requireServiceEnv('THUND_TEST_REST_URI') },
      storage: { s3: { ...TEST_S3_STORAGE_CONFIG.s3!, secret_access_key_env: secretVariable } },
    };
    const namespace = uniqueNamespace();
    const lake = await openCatalog(config);
    try {
      const rows = new Table({ id: vectorFromArray([1n], new Int64()) });
      const error = await lake.table(`${namespace}.refused`).append(rows).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ThundError);
      expect((error as ThundError).code).toBe('STORAGE');
      expect((error as ThundError).context).toMatchObject({ operation: 'write', httpStatus: 403, s3Code: 'SignatureDoesNotMatch' });
      const said = `${(error as Error).message} ${JSON.stringify((error as ThundError).context)}`;
      expect(said).not.toContain(secret);
      expect(said).not.toContain(requireServiceEnv('THUND_TEST_S3_SECRET_KEY'));
      await expect(lake.table(`${namespace}.refused`).read()).rejects.toBeInstanceOf(NoSuchTableError);
    } finally {
      delete process.env[secretVariable];
      await lake.close();
      await dropAll({ ...config, storage: TEST_S3_STORAGE_CONFIG }, namespace, ['refused']);
    }
  });
});
