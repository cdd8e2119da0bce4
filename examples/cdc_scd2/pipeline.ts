/**
 * pipeline.yaml's twin in TypeScript: the same graph, built with the builder. Every thund command
 * that takes a pipeline file takes this one too:
 *
 *   npx thund validate examples/cdc_scd2/pipeline.ts
 *   npx thund run examples/cdc_scd2/pipeline.ts
 *
 * The default export is the built graph; `catalog` and `storage` exports, when given, are the
 * YAML spec's blocks (without them: the embedded catalog in ./warehouse).
 */
import { parquet, pipeline } from 'thund';

export default pipeline('cdc_scd2')
  // Envelopes: op (c|u|d), before, after, source {lsn, …}, ts_ms. A relative path would be taken
  // from the working directory (the YAML spec's are from its own folder): name the folder.
  .source('customer_changes', parquet(`${import.meta.dirname}/data/changes/*.parquet`))
  .streamingTable('lake.customers_history', {
    partitionedBy: ['bucket(4, id)'],
    properties: {
      'write.update.mode': 'merge-on-read',
      'thund.stream.max-files-per-batch': '1',
    },
    sql: 'SELECT op, before, after, source.lsn AS lsn FROM STREAM(customer_changes)',
    applyChanges: { keys: ['id'], sequenceBy: 'lsn', changeFormat: { kind: 'debezium' }, storedAsScdType: 2 },
  })
  .build();
