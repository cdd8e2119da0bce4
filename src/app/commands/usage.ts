/**
 * What the command line says and accepts before a command's module is loaded: usage text and the
 * words a flag may take. Imports nothing, so `thund --help` and a usage error stay quick (cli.ts
 * loads each command's module only when that command runs).
 */

export const SERVE_USAGE = `  thund serve <pipeline.yaml> [--trigger-interval-ms 10000] [--http-host 127.0.0.1] [--http-port 9464]
              [--shutdown-grace-ms 20000] [--outage-give-up-ms N] [--warehouse DIR] [--catalog-name NAME]
              (a pipeline with flows: its whole graph, again and again, until SIGTERM)
  thund serve <pipeline.yaml> --kafka-brokers H:P --topic T --group G --table ns.table
              [--dead-letter-table ns.t] [--commit-interval-ms 10000] [--commit-records 50000]
              [--sql "SELECT … FROM kafka_records"] [--http-host 127.0.0.1] [--http-port 9464]
              [--value-format json|avro|debezium-json|debezium-avro] [--schema-registry-url-env NAME]
              [--schema-registry-username-env NAME] [--schema-registry-password-env NAME]
              [--debezium-op-column _op] [--schema-auto-evolve true|false] [--read-ahead-bytes 16777216]
              [--shutdown-grace-ms 20000] [--outage-give-up-ms N] [--warehouse DIR] [--catalog-name NAME]
              (flags also as THUND_KAFKA_* / THUND_SERVE_* variables or in the file's serve: block)`;

export const MAINTAIN_USAGE =
  '  thund maintain <namespace.table> | --pipeline <file> [tables…] [--compact [--include-older-specs]] [--rewrite-position-deletes] [--rewrite-manifests]\n' +
  '                 [--expire-snapshots [--older-than DURATION|TIMESTAMP] [--retain-last N]] [--remove-orphans [--older-than …]]\n' +
  '                 [--dry-run] [--json] [--warehouse DIR] [--catalog-name NAME]';

export const RUN_BACKENDS = ['native', 'spark'] as const;
export type RunBackend = (typeof RUN_BACKENDS)[number];
