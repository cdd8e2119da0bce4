/**
 * The same catalog behaviour, checked against every Catalog implementation: the embedded SQL
 * catalog (local warehouse), Glue (moto, files in MinIO) and REST (the Iceberg REST fixture and
 * Project Nessie, files in MinIO). See behaviour/catalog-behaviour.ts for the cases.
 */
import { describe } from 'vitest';
import { catalogBehaviour } from './behaviour/catalog-behaviour.js';
import { glueCatalogUnderTest, restCatalogUnderTest, sqlCatalogUnderTest } from './behaviour/catalogs-under-test.js';
import { REST_SERVERS } from './rest-support/rest-servers.js';

describe('SqlCatalog (SQLite, local warehouse)', () => catalogBehaviour(sqlCatalogUnderTest));
describe('GlueCatalog (moto Glue, MinIO)', () => catalogBehaviour(glueCatalogUnderTest));
describe.each(REST_SERVERS)('RestCatalog ($name, MinIO)', (server) => catalogBehaviour(restCatalogUnderTest(server)));
