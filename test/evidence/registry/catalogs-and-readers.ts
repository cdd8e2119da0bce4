/** Evidence for the catalogs Thund commits through and the engines that read its tables. */
import { proof, type Capability } from '../capability.js';

const CATALOGS = 'Catalogs and storage';
const READERS = 'Other engines read the tables';

const BEHAVIOUR_SUITE = 'test/integration/behaviour/catalog-behaviour.ts';

export const CATALOG_AND_READER_CAPABILITIES: readonly Capability[] = [
  {
    id: 'catalog.embedded',
    area: CATALOGS,
    description: 'The embedded catalog: a SQLite file with Iceberg\'s JDBC catalog tables, pointer-swap commits that exactly one of two writers wins.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/catalog/sql-catalog-schema.test.ts', 'SqlCatalog SQLite schema matches the JDBC catalog DDL (columns, types, nullability, primary keys)'),
      proof('unit', 'test/unit/catalog/sql-catalog.test.ts', 'SqlCatalog of two catalogs committing from the same base exactly one wins; the loser gets CommitConflictError'),
      proof('unit', 'test/unit/catalog/sql-catalog-processes.test.ts', 'SqlCatalog across processes applies every commit of concurrent writers exactly once'),
      proof('integration', 'test/integration/catalog-behaviour.test.ts', 'SqlCatalog (SQLite, local warehouse) appends snapshots through commitSnapshot; the manifests and DuckDB agree on the rows', BEHAVIOUR_SUITE),
    ],
  },
  {
    id: 'catalog.rest',
    area: CATALOGS,
    description: 'Iceberg REST catalogs (the Apache REST fixture, Project Nessie): config negotiation, staged creates, retried and fenced commits, multi-table transactions.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/rest-catalog-client.test.ts', 'RestCatalog end to end with real snapshots in MinIO creates a table with its first snapshot (stage-create + assert-create), appends, and reads counts back'),
      proof('integration', 'test/integration/rest-faults.test.ts', 'commitSnapshot through REST faults 409 without forwarding: rebuilds the manifest list, retries, lands once'),
      proof('integration', 'test/integration/rest-catalog-features.test.ts', 'multi-table transactions commits appends to two tables atomically, and refuses a stale transaction changing neither'),
      proof('integration', 'test/integration/rest-concurrency.test.ts', 'two REST writers appending to the same table at once lands all 40 commits, each once, with every file live and every row counted once'),
      proof('integration', 'test/integration/rest-staged-create-refused.test.ts', 'a REST server that refuses staged creation a refused first commit leaves the table empty, with no data file, and the next run fills it'),
    ],
  },
  {
    id: 'catalog.rest-oauth2',
    area: CATALOGS,
    description: 'REST authentication with OAuth2 client credentials, refreshed before expiry and on 401/419, or a bearer token.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/rest-oauth-refresh.test.ts', 'OAuth2 tokens expiring during a run of REST commits refreshes short-lived tokens before they expire: every call authorised, every commit landed'),
      proof('integration', 'test/integration/rest-oauth-refresh.test.ts', 'OAuth2 tokens expiring during a run of REST commits recovers from a token revoked just before the commit request (419) without committing twice'),
      proof('unit', 'test/unit/catalog/rest-auth.test.ts', 'OAuth2 client credentials on a 401 refreshes exactly once and retries the request with the new token'),
    ],
  },
  {
    id: 'catalog.rest-sigv4',
    area: CATALOGS,
    description: 'REST authentication with AWS SigV4 signing.',
    status: 'Available',
    note: 'Signatures are checked by an independent verifier; not run against AWS.',
    proofs: [
      proof('unit', 'test/unit/catalog/rest-auth.test.ts', 'SigV4 signs method, path, query, headers and body so an independent verifier accepts them'),
      proof('unit', 'test/unit/catalog/rest-auth.test.ts', 'SigV4 RestCatalog.connect with sigv4 options signs the config and later calls, with a session token'),
    ],
  },
  {
    id: 'catalog.rest-vended-credentials',
    area: CATALOGS,
    description: '`access_delegation: vended-credentials`: files are written and read with the keys the catalog vends, refreshed before expiry.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/rest-vended.test.ts', 'RestCatalog with vended credentials writes data files and commits a snapshot only through the vended keys'),
      proof('integration', 'test/integration/rest-vended.test.ts', 'RestCatalog with vended credentials reloads the table for fresh keys before using keys that expire within a minute'),
      proof('integration', 'test/integration/rest-vended-new-table.test.ts', 'a new table through a REST catalog that vends credentials writes its files with the session keys Nessie vends (s3.* in the table config)'),
    ],
  },
  {
    id: 'catalog.glue',
    area: CATALOGS,
    description: 'AWS Glue Data Catalog: tables, namespaces, version-fenced commits, register, rename and purge.',
    status: 'Preview',
    note: 'Proven against moto\'s Glue API only; never run against AWS.',
    proofs: [
      proof('integration', 'test/integration/glue-catalog.test.ts', 'GlueCatalog (moto Glue + MinIO) lets exactly one of two writers from the same Glue version win; the loser gets CommitConflictError'),
      proof('integration', 'test/integration/glue-catalog.test.ts', 'GlueCatalog (moto Glue + MinIO) never deletes a metadata file Glue may reference: lost answers and 503s on UpdateTable'),
      proof('integration', 'test/integration/catalog-behaviour.test.ts', 'GlueCatalog (moto Glue, MinIO) appends snapshots through commitSnapshot; the manifests and DuckDB agree on the rows', BEHAVIOUR_SUITE),
    ],
  },
  {
    id: 'storage.s3',
    area: CATALOGS,
    description: 'Tables on S3: streamed multipart uploads, ranged reads, never overwriting an object, retries on 5xx.',
    status: 'Available',
    note: 'Proven against MinIO.',
    proofs: [
      proof('integration', 'test/integration/s3-file-io.test.ts', 'S3FileIO.writeNewFromFile (MinIO) uploads a file over the threshold in parts and reads it back byte-identical'),
      proof('integration', 'test/integration/s3-file-io.test.ts', 'S3FileIO.writeNewFromFile (MinIO) of two writers racing for one key exactly one wins, and the loser leaves no parts'),
      proof('unit', 'test/unit/storage/s3-retry.test.ts', 'S3FileIO retries retries a 503 up to maxAttempts and then returns the object'),
    ],
  },
  {
    id: 'secrets.masked',
    area: CATALOGS,
    description: 'No secret is ever printed: tokens, keys and passwords are masked in errors and logs, even when a server echoes them.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/secrets-echoed.test.ts', 'thund run against a REST catalog that echoes the request OAuth2: neither the client secret nor the tokens obtained at run time (the first and the one refreshed after a 401) are shown'),
      proof('e2e', 'test/e2e/secrets-echoed.test.ts', 'thund run against AWS endpoints that echo the request S3 (an s3:// source with static keys): the error names the location and the status, and shows none of the keys'),
      proof('integration', 'test/integration/serve-secrets-echoed.test.ts', 'the JSON log of a failed serve shows the catalog refusal without the bearer token'),
    ],
  },
  {
    id: 'readers.pyiceberg',
    area: READERS,
    description: 'pyiceberg reads Thund\'s tables (embedded SqlCatalog and REST) with exactly the rows written.',
    status: 'Available',
    proofs: [
      proof('interop', 'test/interop/quickstart-readers.test.ts', 'quickstart table read by pyiceberg and Spark pyiceberg sees the declared schema and exactly the expected rows'),
      proof('e2e', 'test/e2e/quickstart.test.ts', 'quickstart: thund run, twice read by pyiceberg (SqlCatalog on the same SQLite file) sees both snapshots and the same rows'),
      proof('interop', 'test/interop/serve-readers.test.ts', 'a table thund serve landed from Kafka is read by pyiceberg with every record once, its values and coordinates'),
      proof('interop', 'test/interop/cdc-readers.test.ts', 'pyiceberg and Thund\'s scan read lake.customers_history exactly'),
    ],
  },
  {
    id: 'readers.spark',
    area: READERS,
    description: 'Spark (Iceberg runtime) reads Thund\'s v2 and v3 tables, and Thund reads and upserts into tables Spark changed.',
    status: 'Available',
    proofs: [
      proof('interop', 'test/interop/quickstart-readers.test.ts', 'quickstart table read by pyiceberg and Spark Spark sees the declared schema, maps it to the right Spark types, and reads exactly the expected rows'),
      proof('interop', 'test/interop/serve-readers.test.ts', 'a table thund serve landed from Kafka is read by Spark with every record once, its values and coordinates'),
      proof('interop', 'test/interop/v3-spark.test.ts', 'Thund reads Spark\'s v3 tables (Spark 4.1.4, Iceberg 1.12.0) after Spark DELETE, UPDATE and MERGE INTO; Thund upserts into it, merging its vectors with Spark’s, and Spark reads the result'),
    ],
  },
  {
    id: 'readers.trino',
    area: READERS,
    description: 'Trino reads Thund\'s tables from the embedded catalog and through REST + MinIO: partitioned, row-level-changed, v3 and maintained tables.',
    status: 'Preview',
    note: 'Proven in the Trino lane (`npm run test:trino`), which `npm test` does not run.',
    proofs: [
      proof('trino', 'test/trino/quickstart.test.ts', 'trino 483 reads the quickstart table from the embedded SQLite catalog reads exactly the flow output once per run'),
      proof('trino', 'test/trino/rest-catalog.test.ts', 'trino 483 on the REST catalog + MinIO creates a table through the REST catalog and reads back the same rows and types'),
      proof('trino', 'test/trino/partitions-and-deletes.test.ts', 'trino 483 reads partitioned, row-level-changed and spec-evolved tables from the embedded SQLite catalog cli.lake.parts, partitioned by currency, then by bucket(4, order_id) and month(ship_date) reads every row of both runs exactly'),
      proof('trino', 'test/trino/v3-deletion-vectors.test.ts', 'trino 483 reads a Thund v3 table with deletion vectors reads exactly the rows of the model after the deletes and upserts'),
      proof('trino', 'test/trino/maintenance.test.ts', 'trino reads a table before and after thund maintenance returns the reference rows before and after every maintenance action, and only the compacted snapshot is left'),
    ],
  },
];
