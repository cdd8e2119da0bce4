/** Evidence for Parquet and Kafka sources, Kafka sinks and `thund serve`. */
import { proof, type Capability } from '../capability.js';

const PARQUET = 'Parquet sources';
const KAFKA = 'Kafka sources';
const SINKS = 'Kafka sinks';
const SERVE = 'thund serve';

export const SOURCE_AND_SINK_CAPABILITIES: readonly Capability[] = [
  {
    id: 'parquet.local',
    area: PARQUET,
    description: 'Parquet files on local disk: a path, a glob or a list; a fingerprint of the matched files drives staleness.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/parquet/parquet-source.test.ts', 'Parquet source connector (local files) createParquetSourceConnector reads local paths and globs as parquetSourceConnector does'),
      proof('unit', 'test/unit/parquet/parquet-source.test.ts', 'Parquet source connector (local files) fails naming the source and pattern when nothing matches, or a file is not Parquet'),
    ],
  },
  {
    id: 'parquet.s3',
    area: PARQUET,
    description: 'Parquet objects on S3 (`*`, `?`, `**`, `[..]` globs or a prefix), read through the AWS SDK.',
    status: 'Available',
    note: 'Proven against MinIO.',
    proofs: [
      proof('integration', 'test/integration/s3-parquet-source.test.ts', 'Parquet sources on S3 a glob with * selects the files of one level, and the view returns exactly their rows'),
      proof('integration', 'test/integration/s3-parquet-source.test.ts', 'Parquet sources on S3 ** spans any depth, ? and [..] match single characters'),
      proof('integration', 'test/integration/s3-parquet-source.test.ts', 'Parquet sources on S3 refuses an object that is not Parquet before downloading it'),
    ],
  },
  {
    id: 'kafka.json',
    area: KAFKA,
    description: 'JSON values of one or several topics as columns, beside `_kafka_topic`, `_kafka_partition`, `_kafka_offset`, `_kafka_timestamp`, `_kafka_key` and `_kafka_headers`.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-columns.test.ts', 'reads two topics as one source, with coordinates, key, headers and nested values as columns'),
      proof('integration', 'test/integration/kafka-pipelines/kafka-columns.test.ts', 'reads everything up to the end offsets in one run when the byte bound cuts the micro-batches short'),
      proof('unit', 'test/unit/kafka/json-decoder.test.ts', 'JSON decoder turns a record into its object, keeping coordinates, key and headers'),
    ],
  },
  {
    id: 'kafka.starting-offsets',
    area: KAFKA,
    description: '`starting_offsets: latest` starts a new flow at the end of the log; a position beyond a recreated topic\'s end stops the run naming the partition.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-columns.test.ts', 'starts a flow without a checkpoint at the end of the log with starting_offsets: latest, and a long-running process reads what arrives after it'),
      proof('integration', 'test/integration/kafka-exactly-once.test.ts', 'thund serve: Kafka → Iceberg (REST catalog, MinIO) stops with a clear error when the topic was deleted and recreated below the table’s positions'),
    ],
  },
  {
    id: 'kafka.streaming-constructs',
    area: KAFKA,
    description: 'A topic read with `STREAM()` takes windows with watermarks in append, update and complete modes.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-window.test.ts', 'counts words per 10-minute window of a topic in append mode, dropping only records of finalised windows'),
      proof('integration', 'test/integration/kafka-pipelines/kafka-window.test.ts', 'counts words per 10-minute window of a topic in update mode, dropping only records of finalised windows'),
      proof('integration', 'test/integration/kafka-pipelines/kafka-window.test.ts', 'counts words per 10-minute window of a topic in complete mode, dropping only records of finalised windows'),
    ],
  },
  {
    id: 'kafka.avro',
    area: KAFKA,
    description: 'Confluent Avro values through a schema registry, typed by the writer schema\'s logical types.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-avro.test.ts', 'types Avro fields by their writer schema\'s logical types'),
      proof('integration', 'test/integration/kafka-serve-formats.test.ts', 'thund serve: Avro and Debezium values lands Confluent Avro values decoded through the schema registry; an unknown schema id is a dead letter'),
      proof('unit', 'test/unit/kafka/avro-decoder.test.ts', 'Confluent Avro decoder decodes records of two schema versions, fetching each schema once with basic auth'),
    ],
  },
  {
    id: 'kafka.debezium',
    area: KAFKA,
    description: 'Debezium change events (JSON or Avro) as envelopes for `apply_changes` SCD1/SCD2; tombstones skipped.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-avro.test.ts', 'applies Debezium Avro changes through the schema registry as an SCD1 table'),
      proof('integration', 'test/integration/kafka-serve-formats.test.ts', 'thund serve: Avro and Debezium values lands Debezium envelopes (set in the serve: block) as row images with the op in a column; tombstones and truncates are skipped'),
      proof('interop', 'test/interop/kafka-cdc-example.test.ts', 'lands the Debezium topic of examples/kafka_cdc as SCD1 and SCD2 tables that pyiceberg reads'),
      proof('unit', 'test/unit/kafka/debezium-decoder.test.ts', 'Debezium decoder (JSON envelopes) maps create, snapshot read, update and delete to row kinds with their row images'),
    ],
  },
  {
    id: 'kafka.exactly-once',
    area: KAFKA,
    description: 'Exactly once into Iceberg: offsets commit with the rows; `kill -9`, two `thund serve` or two `thund run` processes at once land every record once.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/serve-pipeline-crash.test.ts', 'lands three tables from two topics exactly once through 20 kill -9 restarts of thund serve'),
      proof('integration', 'test/integration/kafka-pipelines/kafka-concurrent.test.ts', 'two thund run processes started together land every record once'),
      proof('integration', 'test/integration/kafka-pipelines/kafka-concurrent.test.ts', 'two thund serve processes on one pipeline land every record once'),
      proof('integration', 'test/integration/kafka-million.test.ts', 'thund serve: 1M records (REST catalog, MinIO) lands 1M records of 6 partitions exactly once: count, distinct coordinates, key checksum'),
      proof('integration', 'test/integration/kafka-source.test.ts', 'Kafka source on the test stack broker, consumer worker skips aborted transactions and their markers, committed records keeping their offsets (plain and gzip batches)'),
      proof('unit', 'test/unit/kafka/kafkajs-record-batch-decoder.test.ts', "the record batch decoder kafkajs's consumer is given in the consumer's worker reads control, transactional and log-append-time batches as kafkajs does"),
    ],
  },
  {
    id: 'kafka.consumer-groups',
    area: KAFKA,
    description: '`consumer_group`: processes serving one pipeline share a stateless source\'s partitions through a Kafka group.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-exactly-once-group.test.ts', 'thund serve: two instances in one group lands every record exactly once across a rebalance'),
      proof('integration', 'test/integration/kafka-exactly-once-group.test.ts', 'thund serve: two instances in one group lands every record exactly once when a member is killed mid-stream and its partitions move'),
      proof('integration', 'test/integration/kafka-exactly-once-group.test.ts', 'thund serve: two instances in one group a member that leaves cleanly frees its partitions at once; after a killed one, the wait for its session is logged with its length'),
    ],
  },
  {
    id: 'kafka.dead-letters',
    area: KAFKA,
    description: 'Undecodable, misfit and uncastable records go to a dead-letter table once, before their batch commits; the rest lands.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-bad-records.test.ts', 'sends undecodable and misfit records to the dead letters, once, and lands every other record'),
      proof('integration', 'test/integration/kafka-exactly-once.test.ts', 'thund serve: Kafka → Iceberg (REST catalog, MinIO) sends undecodable, reserved-field and uncastable records to the dead-letter table with their offsets; the rest land'),
    ],
  },
  {
    id: 'kafka.expectations',
    area: KAFKA,
    description: 'A record failing a `fail` expectation stops the run without landing its batch or moving its offsets.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/kafka-bad-records.test.ts', 'stops at a record failing a fail expectation without landing its batch, and lands the rest once it drops'),
    ],
  },
  {
    id: 'kafka.security',
    area: KAFKA,
    description: 'SASL (PLAIN, SCRAM) and TLS options of a Kafka source, secrets from the variables they name.',
    status: 'Experimental',
    note: 'The options are read and handed to the client, and their secrets are masked; no test connects to a broker that requires SASL or TLS.',
    proofs: [
      proof('unit', 'test/unit/connectors/kafka/pipeline-source-options.test.ts', 'builds SASL credentials from the variables the options name, and never shows their values'),
      proof('unit', 'test/unit/connectors/kafka/pipeline-source-options.test.ts', 'reads extra CA certificates for TLS from ssl_ca_file, naming the file when it cannot'),
    ],
  },
  {
    id: 'sink.kafka',
    area: SINKS,
    description: 'A flow publishes its rows to a Kafka topic as JSON, with key and header columns, exactly once for `read_committed` consumers.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-sink-flow.test.ts', 'flows into a Kafka sink (native engine, test stack broker) a batch flow publishes exactly its query\'s rows with keys and headers, in one transaction per run'),
      proof('integration', 'test/integration/kafka-sink-flow.test.ts', 'flows into a Kafka sink (native engine, test stack broker) a streaming flow over a Parquet folder, run three times with new files between runs, publishes each row exactly once'),
      proof('integration', 'test/integration/kafka-sink-flow.test.ts', 'flows into a Kafka sink (native engine, test stack broker) a crash between the sends and the commit, then a rerun: read_committed sees each row exactly once'),
    ],
  },
  {
    id: 'sink.expectations',
    area: SINKS,
    description: 'Expectations on a Kafka sink: `warn` publishes and counts, `drop` leaves rows out, `fail` publishes nothing of the batch.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-sink-expectations.test.ts', 'expectations on a Kafka sink (native engine, test stack broker) a batch flow: drop publishes exactly the passing rows, warn publishes all, and both are counted'),
      proof('integration', 'test/integration/kafka-sink-expectations.test.ts', 'expectations on a Kafka sink (native engine, test stack broker) a streaming flow whose second micro-batch fails keeps the first published and commits no checkpoint for the second'),
    ],
  },
  {
    id: 'sink.refusals',
    area: SINKS,
    description: 'Only stateless streaming queries write to a sink: aggregations, windows and other formats are refused, naming flow and sink.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-sink-flow.test.ts', 'flows into a Kafka sink (native engine, test stack broker) refuses an aggregation into a sink, naming the flow and the sink, before publishing anything'),
      proof('unit', 'test/unit/engine/graph/sink/sink-refusals.test.ts', 'streaming flows into a sink refuses a time window and a window function over the stream'),
    ],
  },
  {
    id: 'serve.pipeline',
    area: SERVE,
    description: '`thund serve pipeline.yaml` runs the pipeline\'s streaming flows every trigger; SIGTERM commits the batch in progress and exits 0.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-exactly-once.test.ts', 'thund serve: Kafka → Iceberg (REST catalog, MinIO) on SIGTERM finishes and commits the batch in progress, exits 0, and a restart lands the rest exactly once'),
      proof('integration', 'test/integration/kafka-pipelines/kafka-columns.test.ts', 'skips a materialized view over a streaming table that has no data yet, and computes it once it has'),
    ],
  },
  {
    id: 'serve.topic',
    area: SERVE,
    description: '`thund serve --topic … --table …`: one topic appended to one table, settings from flags, variables or the `serve:` block.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-exactly-once.test.ts', 'thund serve: Kafka → Iceberg (REST catalog, MinIO) lands 200k records of 6 partitions exactly once, and SIGTERM exits 0 with all of it committed'),
      proof('unit', 'test/unit/serve/serve-config.test.ts', 'serve settings takes environment variables where no flag is given, and a flag wins over its variable'),
    ],
  },
  {
    id: 'serve.metrics-health',
    area: SERVE,
    description: '`/healthz`, `/readyz` and `/metrics` (per flow: commits, rows; per partition: records, dead letters, lag) on 127.0.0.1:9464.',
    status: 'Available',
    proofs: [
      proof('unit', 'test/unit/serve/readiness.test.ts', 'Readiness a catalog that never answers: not ready after the probe timeout, and the probes answer at once meanwhile'),
      proof('unit', 'test/unit/serve/readiness.test.ts', 'Readiness is ready once the catalog answered and a trigger completed; a failed trigger names its dependency'),
      proof('integration', 'test/integration/kafka-exactly-once.test.ts', 'thund serve: Kafka → Iceberg (REST catalog, MinIO) lands 200k records of 6 partitions exactly once, and SIGTERM exits 0 with all of it committed'),
      proof('unit', 'test/unit/serve/prometheus-text.test.ts', 'Prometheus text format writes HELP and TYPE lines, labels with escaped values, and special numbers'),
    ],
  },
  {
    id: 'serve.schema-evolution',
    area: SERVE,
    description: 'With auto-evolve, fields a batch brings are added as optional columns in the same commit; without it the table keeps its columns.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-serve-evolution.test.ts', 'thund serve: schema evolution adds new fields as optional columns in the same commit as the batch that brought them'),
      proof('integration', 'test/integration/kafka-serve-evolution.test.ts', 'thund serve: schema evolution keeps the schema without the property: the new fields are not written'),
    ],
  },
  {
    id: 'serve.avro-logical-types',
    area: SERVE,
    description: 'Avro and Debezium logical types (timestamps, dates, times, decimals) land with their Iceberg types and exact values.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-serve-avro-logical.test.ts', 'thund serve: Avro logical types land as Iceberg types creates timestamptz, timestamp, date, time, decimal(20, 2) and string columns with exact values'),
      proof('integration', 'test/integration/kafka-serve-avro-logical.test.ts', 'thund serve: Avro logical types land as Iceberg types lands Debezium MicroTimestamp, ZonedTimestamp, Date and Connect Decimal from debezium-avro with their types'),
    ],
  },
  {
    id: 'serve.maintenance',
    area: SERVE,
    description: '`thund serve` maintains its tables between triggers (the most overdue action, intervals from table properties).',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/kafka-pipelines/serve-maintenance.test.ts', 'compacts and expires its tables between triggers, through kill -9 restarts, with nothing lost, doubled or unreadable'),
      proof('unit', 'test/unit/serve/serve-maintenance.test.ts', 'serve maintenance runs nothing before an interval has passed, then the most overdue action, one per call, and compacts for real'),
    ],
  },
  {
    id: 'serve.status-page',
    area: SERVE,
    description:
      '`thund serve` answers GET / with a status page (server-side HTML, no script, refreshing itself) and GET /status with the same as JSON: the graph, per flow its state and last commit, per source partition the lag, the latest dead letters and their reasons, per table its records, files, snapshots and last maintenance.',
    status: 'Available',
    proofs: [
      proof('integration', 'test/integration/serve-status-page.test.ts', 'shows in headless Chromium the live numbers /status reports: flow, partitions, dead letter, table'),
      proof('unit', 'test/unit/serve/status-page.test.ts', 'ServeStatus and the status page counts each committed batch of a flow, with its snapshot, and the partitions, dead letters and tables'),
      proof('unit', 'test/unit/serve/status-page.test.ts', 'ServeStatus and the status page marks a flow failed with the error of its run'),
      proof('unit', 'test/unit/serve/status-page.test.ts', 'a served pipeline answers GET /status and GET / with the commit of its flow and the files and snapshots of its table, the page showing the same values'),
    ],
  },
  {
    id: 'serve.bounded-shutdown',
    area: SERVE,
    description: 'SIGTERM: serve commits the batch in progress and exits 0, or, when it cannot finish within `--shutdown-grace-ms` (default 20 s), leaves it uncommitted and exits 0 saying so.',
    status: 'Available',
    proofs: [
      proof('e2e', 'test/e2e/serve-shutdown-grace.test.ts', 'leaves a batch that outlasts the grace time behind: exits 0 soon after it, saying so, with nothing committed'),
      proof('e2e', 'test/e2e/serve-shutdown-grace.test.ts', 'commits a batch that finishes within the grace time, then says it stopped'),
    ],
  },
  {
    id: 'serve.outages',
    area: SERVE,
    description:
      'serve through outages: probes that never wait on a dependency (the catalog and the Kafka brokers probed in the background), /readyz 503 with its reasons, retryable failures retried with capped backoff (logged when an outage starts, continues and ends) instead of exiting, every catalog and S3 request bounded by a timeout (`catalog.request_timeout_ms`, `storage.s3.connect_timeout_ms` / `idle_timeout_ms`), and commits that settle a lost answer, a 409 or a fence warn naming the snapshot ids.',
    status: 'Available',
    note: 'Staged under serve: a frozen and a killed REST catalog, a frozen and a killed Kafka broker (a broker of the test\'s own, reached through a proxied listener), frozen MinIO, a commit answer dropped after the catalog applied it, and a commit delivered after its timeout.',
    proofs: [
      proof('integration', 'test/integration/serve-catalog-outage.test.ts', 'answers its probes at once and rides out a frozen and a killed catalog, landing every record once'),
      proof('integration', 'test/integration/serve-kafka-outage.test.ts', 'answers its probes at once and rides out a frozen and a killed Kafka broker, landing every record once'),
      proof('integration', 'test/integration/serve-storage-outage.test.ts', 'answers its probes at once and rides out frozen and killed storage, stops within its grace time while storage hangs, committing nothing by halves and landing every record once'),
      proof('integration', 'test/integration/serve-commit-faults.test.ts', 'settles a dropped commit answer and a commit delivered after its timeout, warning with the snapshot ids, landing every record once'),
      proof('unit', 'test/unit/serve/outage.test.ts', 'OutageTracker backs off 1, 2, 4 … s up to 30 s, warns at the start and every minute, and says when it ended'),
      proof('unit', 'test/unit/serve/outage.test.ts', 'OutageTracker rides out what is retryable and unknown commit outcomes; stops on refusals'),
      proof('unit', 'test/unit/serve/readiness.test.ts', 'Readiness names kafka while its brokers do not answer in time, and is ready again once they do'),
      proof('unit', 'test/unit/kafka/kafka-offset-stream.test.ts', 'a client that gave up fails the read in progress; the next read starts a new client at the range asked for'),
      proof('unit', 'test/unit/storage/s3-timeouts.test.ts', 'fails a read from a store that accepts the connection and never answers, after the idle timeout and its retries'),
      proof('unit', 'test/unit/table/commit-notices.test.ts', 'commitSnapshot notices names the snapshot of a lost answer that was applied'),
      proof('unit', 'test/unit/table/commit-notices.test.ts', 'commitSnapshot notices names the snapshot of a lost answer that was not applied, then commits it with the same id'),
      proof('unit', 'test/unit/table/commit-notices.test.ts', 'commitSnapshot notices names both snapshots of a 409 retried on the moved table'),
      proof('unit', 'test/unit/table/commit-notices.test.ts', 'commitSnapshot notices names the snapshot a fence kept out and the table it was fenced on'),
    ],
  },
];
