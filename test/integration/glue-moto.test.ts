/**
 * The Glue API of the test stack (moto server), spoken to with @aws-sdk/client-glue the way an
 * Iceberg Glue catalog uses it: an EXTERNAL_TABLE whose parameters point at the current metadata
 * file, swapped by UpdateTable with the VersionId read before (optimistic locking).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsException,
  ConcurrentModificationException,
  CreateDatabaseCommand,
  CreateTableCommand,
  EntityNotFoundException,
  GetDatabaseCommand,
  GetTableCommand,
  GetTableVersionsCommand,
  GlueClient,
  UpdateTableCommand,
  type TableInput,
} from '@aws-sdk/client-glue';
import { requireServiceEnv } from '../stack/service.js';

let client: GlueClient | undefined;

// Made inside each test rather than in beforeAll, so a missing service fails the tests instead of skipping them.
function glueClient(): GlueClient {
  client ??= new GlueClient({
    endpoint: requireServiceEnv('THUND_TEST_GLUE_ENDPOINT'),
    region: requireServiceEnv('THUND_TEST_AWS_REGION'),
    credentials: { accessKeyId: requireServiceEnv('THUND_TEST_AWS_ACCESS_KEY'), secretAccessKey: requireServiceEnv('THUND_TEST_AWS_SECRET_KEY') },
  });
  return client;
}

afterAll(() => client?.destroy());

const metadataLocation = (table: string, n: number): string => `s3://thund-it/warehouse/${table}/metadata/0000${n}-${randomUUID()}.metadata.json`;

function icebergTableInput(name: string, location: string, previous?: string): TableInput {
  return {
    Name: name,
    TableType: 'EXTERNAL_TABLE',
    Parameters: { table_type: 'ICEBERG', metadata_location: location, ...(previous === undefined ? {} : { previous_metadata_location: previous }) },
    StorageDescriptor: {
      Location: `s3://thund-it/warehouse/${name}`,
      Columns: [
        { Name: 'id', Type: 'bigint' },
        { Name: 'name', Type: 'string' },
      ],
    },
  };
}

async function getTable(database: string, name: string) {
  const { Table } = await glueClient().send(new GetTableCommand({ DatabaseName: database, Name: name }));
  if (Table === undefined) throw new Error(`GetTable ${database}.${name} returned no table`);
  return Table;
}

describe('glue API (moto, test stack)', () => {
  it('creates a database and an Iceberg table and reads them back', async () => {
    const glue = glueClient();
    const database = `thund_it_${randomUUID().slice(0, 8)}`;
    await glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: database, Description: 'thund integration test' } }));
    const { Database } = await glue.send(new GetDatabaseCommand({ Name: database }));
    expect(Database?.Name).toBe(database);
    await expect(glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: database } }))).rejects.toBeInstanceOf(AlreadyExistsException);

    const location = metadataLocation('events', 0);
    await glue.send(new CreateTableCommand({ DatabaseName: database, TableInput: icebergTableInput('events', location) }));
    const table = await getTable(database, 'events');
    expect(table.Name).toBe('events');
    expect(table.DatabaseName).toBe(database);
    expect(table.TableType).toBe('EXTERNAL_TABLE');
    expect(table.Parameters).toEqual({ table_type: 'ICEBERG', metadata_location: location });
    expect(table.StorageDescriptor?.Columns?.map((c) => c.Name)).toEqual(['id', 'name']);
    expect(table.VersionId).toBeTruthy();

    await expect(glue.send(new GetTableCommand({ DatabaseName: database, Name: 'missing' }))).rejects.toBeInstanceOf(EntityNotFoundException);
  });

  it('updates a table with its VersionId and rejects an update with a stale one', async () => {
    const glue = glueClient();
    const database = `thund_it_${randomUUID().slice(0, 8)}`;
    await glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: database } }));
    const first = metadataLocation('orders', 0);
    await glue.send(new CreateTableCommand({ DatabaseName: database, TableInput: icebergTableInput('orders', first) }));
    const before = await getTable(database, 'orders');
    const staleVersion = before.VersionId;
    expect(staleVersion).toBeTruthy();

    const second = metadataLocation('orders', 1);
    await glue.send(new UpdateTableCommand({ DatabaseName: database, TableInput: icebergTableInput('orders', second, first), VersionId: staleVersion }));
    const after = await getTable(database, 'orders');
    expect(after.Parameters?.['metadata_location']).toBe(second);
    expect(after.Parameters?.['previous_metadata_location']).toBe(first);
    expect(after.VersionId).toBeTruthy();
    expect(after.VersionId).not.toBe(staleVersion);

    // A writer that read the table before the update above must lose, and change nothing.
    const losing = metadataLocation('orders', 2);
    await expect(
      glue.send(new UpdateTableCommand({ DatabaseName: database, TableInput: icebergTableInput('orders', losing, first), VersionId: staleVersion })),
    ).rejects.toBeInstanceOf(ConcurrentModificationException);
    expect((await getTable(database, 'orders')).Parameters?.['metadata_location']).toBe(second);

    const { TableVersions } = await glue.send(new GetTableVersionsCommand({ DatabaseName: database, TableName: 'orders' }));
    expect(TableVersions?.map((v) => v.Table?.Parameters?.['metadata_location']).sort()).toEqual([first, second].sort());
  });
});
