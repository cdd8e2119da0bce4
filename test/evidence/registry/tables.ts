/** Evidence for the Iceberg writer, reading what others wrote, and table maintenance. */
import { proof, type Capability } from '../capability.js';

const WRITER = 'Iceberg tables';
const MAINTENANCE = 'Table maintenance and add-files';

export const TABLE_CAPABILITIES: readonly Capability[] = [
  {
    id: 'iceberg.v2-data-files',
    area: WRITER,
    description: 'Format v2 tables: Parquet data files with Iceberg field ids and column metrics (bounds, null and NaN counts), Avro manifests.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/quickstart.test.ts', 'quickstart: thund run, twice writes Iceberg field ids into every Parquet column'),
      proof('unit', 'test/unit/write/data-file-metrics.test.ts', 'data file metrics from DuckDB RETURN_STATS (every primitive type) full: bounds decode to exactly the true min and max; counts are exact'),
      proof('unit', 'test/unit/write/nan-value-counts.test.ts', 'nan_value_counts are written for an unpartitioned table and read back from the manifest'),
      proof('interop', 'test/interop/nan-counts-readers.test.ts', 'NaN metrics read by pyiceberg d > 100 plans only the file without NaN'),
    ],
  },
  {
    id: 'iceberg.file-sizing',
    area: WRITER,
    description: 'Files roll at `write.target-file-size-bytes`; partitioned writes cluster rows and cap open files.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/write/data-file-writer.test.ts', 'writeDataFiles rolls files at write.target-file-size-bytes and writes every row exactly once'),
      proof('unit', 'test/unit/write/partitioned-rolling.test.ts', 'writePartitionedDataFiles sizing caps open partition files at write.partitioned.max-open-files and restores DuckDB’s setting'),
    ],
  },
  {
    id: 'iceberg.partition-transforms',
    area: WRITER,
    description: 'Every partition transform (identity, year, month, day, hour, bucket, truncate, void), computed as Iceberg\'s Java library computes them.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/iceberg/transforms.test.ts', 'transform strings parses and prints every transform'),
      proof('unit', 'test/unit/iceberg/transforms-duckdb.test.ts', 'transformSql on the spec vectors buckets every vector as the spec hash says'),
      proof('unit', 'test/unit/iceberg/transforms-duckdb.test.ts', 'transformSql on the spec vectors gives the spec time transform values, rounding toward −∞ before the epoch'),
      proof('unit', 'test/unit/iceberg/transforms-extremes.test.ts', 'transforms at extreme values, in TypeScript wraps int truncation the way Java int arithmetic does where W is above 2^30'),
      proof('unit', 'test/unit/write/partitioned-writer.test.ts', 'partition layout places the spec vectors where Java would: day 2017-11-16, bucket[16] of 34 = 3, nulls as null'),
      proof('interop', 'test/interop/partitioned-readers.test.ts', 'lake.by_hour_void read by pyiceberg and Spark Spark reads exactly the source rows, with and without the filter'),
      proof('interop', 'test/interop/partitioned-readers.test.ts', 'lake.by_name_trunc read by pyiceberg and Spark pyiceberg reads exactly the source rows, and its filtered scan prunes files'),
    ],
  },
  {
    id: 'iceberg.partition-evolution',
    area: WRITER,
    description: 'Changing `partitioned_by` evolves the spec in the run\'s commit; old files keep their spec.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/partitioned-run.test.ts', 'creates a partitioned table, evolves its spec on a later run, and readers see every row'),
      proof('interop', 'test/interop/schema-evolution-readers.test.ts', 'an evolving table read by pyiceberg and Spark the partition spec evolved twice; every spec is kept, old files stay under spec 0, new ones go under spec 2'),
    ],
  },
  {
    id: 'iceberg.schema-evolution',
    area: WRITER,
    description: 'Schema evolution in the run\'s commit: new columns (also in structs), widened types, left-out optional columns as null; `thund.schema.auto-evolve: false` refuses any change.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/schema-evolution.test.ts', 'reports added and widened columns, and readers see nulls for old rows'),
      proof('e2e', 'test/e2e/schema-evolution.test.ts', 'with thund.schema.auto-evolve false, a new column fails the run and changes nothing'),
      proof('unit', 'test/unit/iceberg/schema-evolution-flow.test.ts', 'runFlow with schema evolution adds columns, widens int→long and adds a nested field in the data commit; new files carry the new ids'),
      proof('interop', 'test/interop/schema-evolution-readers.test.ts', 'an evolving table read by pyiceberg and Spark both readers agree'),
    ],
  },
  {
    id: 'iceberg.merge-on-read-v2',
    area: WRITER,
    description: 'Row-level deletes and upserts on v2: position delete files (merge-on-read) or rewritten files (copy-on-write).',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/row-level.test.ts', 'deleteWhere writes one sorted position delete file per partition, removes a fully matched file, and our scan applies both'),
      proof('interop', 'test/interop/row-level-readers.test.ts', 'row-level deletes and upserts read by pyiceberg and Spark pyiceberg reads lake.mor_by_bucket exactly, after the deletes and after three upserts'),
      proof('interop', 'test/interop/row-level-readers.test.ts', 'row-level deletes and upserts read by pyiceberg and Spark Spark reads lake.cow exactly after three upserts'),
      proof('interop', 'test/interop/row-level-readers.test.ts', 'row-level deletes and upserts read by pyiceberg and Spark Spark reads the merge-on-read table exactly at the snapshot of the deletes'),
    ],
  },
  {
    id: 'iceberg.v3-deletion-vectors',
    area: WRITER,
    description: 'Format v3: deletes and upserts write Puffin deletion vectors, one per data file, merged with earlier ones; row ids kept.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/deletion-vectors.test.ts', 'deletion vectors on a v3 table deleteWhere writes one vector per data file, never a position delete file, and a second delete merges into the vector and removes the old one'),
      proof('unit', 'test/unit/iceberg/puffin/deletion-vector.test.ts', 'deletion-vector-v1 blobs reads and rewrites Iceberg’s all-container-types test resource'),
      proof('interop', 'test/interop/v3-spark.test.ts', 'deletion vector bytes Spark\'s vector re-encodes to its own bytes, and Thund\'s vector for the same positions equals Spark\'s, also merged'),
      proof('e2e', 'test/e2e/format-v3.test.ts', 'appends twice to a v3 table with consistent row ids, readable by pyiceberg'),
    ],
  },
  {
    id: 'iceberg.v3-types',
    area: WRITER,
    description: 'v3 types `timestamp_ns`, `timestamptz_ns` and `unknown`, and column defaults; a v2 table refuses them.',
    status: 'Available',
    note: '`variant`, `geometry` and `geography` columns are kept in the metadata but not read or written.',
    proofs: [
      proof('unit', 'test/unit/table/v3-types.test.ts', 'timestamp_ns and timestamptz_ns in a v3 table writes nanoseconds with the UTC flag per type, exact bounds and partition tuples, and reads them back exactly'),
      proof('unit', 'test/unit/table/v3-types.test.ts', 'timestamp_ns and timestamptz_ns in a v3 table refuses the v3 types in a v2 table, when created and when a schema change adds one'),
    ],
  },
  {
    id: 'iceberg.format-upgrade',
    area: WRITER,
    description: 'A table is upgraded from v2 to v3 by the run whose properties ask for it.',
    status: 'Available',
    proofs: [proof('unit', 'test/unit/engine/format-upgrade.test.ts', 'upgrades a v2 table to v3 in the run that asks for it, and the upsert writes deletion vectors')],
  },
  {
    id: 'iceberg.foreign-deletes',
    area: WRITER,
    description: 'Equality deletes (Flink, Kafka Connect) and deletion vectors other writers made are applied when reading, upserting and compacting.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/foreign-deletes.test.ts', 'equality deletes written by Spark (equality_deletes) partitioned: a delete applies in its own partition only, and not to data added after it'),
      proof('interop', 'test/interop/v3-spark.test.ts', 'equality deletes by a foreign writer (Iceberg Java API) Thund applies them by sequence number, upserts into the table, and Spark agrees'),
    ],
  },
  {
    id: 'iceberg.commits',
    area: WRITER,
    description: 'Optimistic commits: a conflict is retried with the same snapshot id, an unknown outcome deletes nothing and looks for the snapshot; small manifests are merged.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/commit-snapshot.test.ts', 'commitSnapshot retries an append whose base went stale and keeps both writers’ rows'),
      proof('unit', 'test/unit/table/commit-snapshot.test.ts', 'commitSnapshot treats an unknown outcome that did land as success'),
      proof('integration', 'test/integration/rest-faults.test.ts', 'commitSnapshot through REST faults 503 on every attempt: CommitStateUnknownError, nothing deleted, the table unchanged'),
      proof('unit', 'test/unit/table/maintenance/rewrite-manifests.test.ts', 'manifest merging on every commit keeps a table of 300 appends at a bounded number of manifests'),
    ],
  },
  {
    id: 'iceberg.missing-manifest',
    area: WRITER,
    description: 'A table whose snapshot lists a manifest storage no longer holds is refused before anything is written.',
    status: 'Available',
    proofs: [proof('unit', 'test/unit/table/manifest-presence.test.ts', 'refuses a base listing a missing manifest, naming it, and writes nothing')],
  },
  {
    id: 'iceberg.foreign-metadata',
    area: WRITER,
    description: 'Metadata and manifests other implementations wrote (Java, iceberg-rust, pyiceberg fixtures) are read.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/iceberg/manifest-fixtures.test.ts', 'foreign manifest fixtures decodes every manifest list and manifest'),
      proof('unit', 'test/unit/iceberg/manifest-fixtures.test.ts', 'foreign manifest fixtures agrees with every snapshot of every table metadata.json'),
    ],
  },
  {
    id: 'maintain.compact',
    area: MAINTENANCE,
    description: '`thund maintain --compact` bin-packs small files into live rows only; a concurrent append survives, a concurrent delete on a rewritten file fails it.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/maintenance/compact.test.ts', 'compact v2: rewrites 12 small files with position and equality deletes into one file of the live rows and drops the delete files'),
      proof('e2e', 'test/e2e/maintain.test.ts', 'thund maintain --compact --dry-run says what would change and changes nothing; a real run compacts'),
      proof('interop', 'test/interop/maintenance-compact.test.ts', 'compaction with independent readers and Spark writers a Spark INSERT committed during a compaction survives it'),
    ],
  },
  {
    id: 'maintain.rewrite-deletes-and-manifests',
    area: MAINTENANCE,
    description: '`--rewrite-position-deletes` (v3: into deletion vectors) and `--rewrite-manifests`.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/maintenance/rewrite-position-deletes.test.ts', 'rewrite-position-deletes v2: merges the position delete files into one with the same positions'),
      proof('unit', 'test/unit/table/maintenance/rewrite-position-deletes.test.ts', 'rewrite-position-deletes v3: turns the position delete files into one deletion vector per data file'),
      proof('unit', 'test/unit/table/maintenance/rewrite-manifests.test.ts', 'rewriteManifests clusters the entries by partition'),
    ],
  },
  {
    id: 'maintain.expire-and-orphans',
    area: MAINTENANCE,
    description: '`--expire-snapshots` and `--remove-orphans` delete only files nothing reachable needs, never a pipeline\'s positions.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/table/maintenance/expire-snapshots.test.ts', 'expireSnapshots expires old snapshots, deletes only the files they alone reached, and every kept snapshot still reads'),
      proof('unit', 'test/unit/table/maintenance/expire-snapshots.test.ts', 'expireSnapshots keeps the snapshots holding the newest source positions and checkpoint, and the ancestry down to them'),
      proof('unit', 'test/unit/table/maintenance/remove-orphans.test.ts', 'removeOrphans deletes a crashed run’s files older than the safety age, keeps young ones and everything reachable'),
      proof('integration', 'test/integration/maintenance-expire-s3.test.ts', 'maintenance on MinIO through the REST catalog expires old snapshots and deletes only the objects they alone reached'),
    ],
  },
  {
    id: 'maintain.every-catalog',
    area: MAINTENANCE,
    description: 'Every maintenance action works through the embedded, REST and Glue catalogs.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/maintenance-catalogs.test.ts', 'maintenance through SqlCatalog (SQLite, local warehouse) compacts, rewrites deletes and manifests, expires and removes orphans: same rows, and only reachable files stay'),
      proof('integration', 'test/integration/maintenance-catalogs.test.ts', 'maintenance through GlueCatalog (moto Glue, MinIO) compacts, rewrites deletes and manifests, expires and removes orphans: same rows, and only reachable files stay'),
      proof('interop', 'test/interop/maintenance-readers.test.ts', 'thund maintain on a table serve committed to some three hundred times leaves few files and manifests, a short history whose snapshots all read, no unreachable file, and the same rows in pyiceberg and Spark'),
    ],
  },
  {
    id: 'add-files',
    area: MAINTENANCE,
    description: '`thund add-files` registers existing Parquet files (local or S3) without rewriting them, reading only their footers.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/add-files.test.ts', 'adds files named by a glob and a folder, after a dry run that commits nothing'),
      proof('e2e', 'test/e2e/add-files.test.ts', 'refuses a bad file and a file already added, naming them, and commits nothing'),
      proof('integration', 'test/integration/add-files-s3.test.ts', 'add-files on S3 reads only each file footer, and the rows read back are the files rows'),
      proof('interop', 'test/interop/add-files-readers.test.ts', 'files registered by add-files pyiceberg reads exactly the files rows, and prunes by the derived partitions'),
    ],
  },
];
