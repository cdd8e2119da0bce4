/**
 * The three catalogs the behaviour suite runs against, each with the FileIO its tables use and a
 * way to see which files really are stored under a location: the embedded SQL catalog on a
 * temporary local warehouse, Glue on moto and each REST server of the stack, with files in MinIO.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Catalog } from '../../../catalog/catalog.js';
import { GlueCatalog } from '../../../catalog/glue/glue-catalog.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { fromFileUri, LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { S3FileIO } from '../../../connectors/storage/s3-file-io.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { testS3Bucket, testS3FileIOOptions } from '../../stack/s3-env.js';
import { requireServiceEnv } from '../../stack/service.js';
import { restServerUri, type RestServerUnderTest, type ServerDifferences } from '../rest-support/rest-servers.js';
import { objectsUnder } from './s3-objects.js';

export interface CatalogUnderTest {
  readonly catalog: Catalog;
  /** Where data files for this catalog's tables are written and read. */
  readonly io: FileIO;
  /** Every file stored under `location` (relative, sorted); [] when there is none. */
  filesUnder(location: string): Promise<string[]>;
  /** What a server does its own way, by design; absent: the Iceberg reference behaviour. */
  readonly differences?: ServerDifferences;
  close(): Promise<void>;
}

export type CatalogFactory = () => Promise<CatalogUnderTest>;

export const sqlCatalogUnderTest: CatalogFactory = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'thund-behaviour-'));
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: join(dir, 'catalog.db'), warehouse: toFileUri(join(dir, 'warehouse')), io });
  return {
    catalog,
    io,
    filesUnder: localFilesUnder,
    async close() {
      await catalog.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

export const glueCatalogUnderTest: CatalogFactory = async () => {
  const io = new S3FileIO(testS3FileIOOptions());
  const catalog = new GlueCatalog({
    name: 'behaviour',
    warehouse: `s3://${testS3Bucket()}/it-behaviour/${randomUUID().slice(0, 8)}`,
    io,
    glue: {
      endpoint: requireServiceEnv('THUND_TEST_GLUE_ENDPOINT'),
      region: requireServiceEnv('THUND_TEST_AWS_REGION'),
      credentials: {
        accessKeyId: requireServiceEnv('THUND_TEST_AWS_ACCESS_KEY'),
        secretAccessKey: requireServiceEnv('THUND_TEST_AWS_SECRET_KEY'),
      },
    },
  });
  return { catalog, io, filesUnder: objectsUnder, close: async () => closeBoth(catalog, io) };
};

export const restCatalogUnderTest =
  (server: RestServerUnderTest): CatalogFactory =>
  async () => {
    const io = new S3FileIO(testS3FileIOOptions());
    const catalog = await RestCatalog.connect({
      uri: restServerUri(server),
      io,
      ...(server.warehouse === undefined ? {} : { warehouse: server.warehouse }),
    });
    const differences = server.differences === undefined ? {} : { differences: server.differences };
    return { catalog, io, filesUnder: objectsUnder, ...differences, close: async () => closeBoth(catalog, io) };
  };

async function closeBoth(catalog: Catalog, io: S3FileIO): Promise<void> {
  await catalog.close();
  io.close();
}

async function localFilesUnder(location: string): Promise<string[]> {
  const dir = fromFileUri(location);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}
