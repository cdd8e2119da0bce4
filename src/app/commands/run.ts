/**
 * `thund run <pipeline.yaml>`: run a batch pipeline into the catalog its `catalog` block names
 * (the embedded SQLite catalog by default).
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import { createParquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import { runPipeline } from '../../engine/run-pipeline.js';
import type { SchemaEvolutionChange } from '../../iceberg/schema-evolution.js';
import { typeText } from '../../iceberg/schema.js';
import { loadPipelineSpec } from '../../pipeline/spec.js';
import { openCatalog, type CatalogOverrides } from '../open-catalog.js';

export async function runCommand(specPath: string, options: CatalogOverrides, print: (line: string) => void): Promise<void> {
  const spec = await loadPipelineSpec(specPath);
  const opened = await openCatalog(spec, options);
  const sources = createParquetSourceConnector(opened.s3 === undefined ? {} : { s3: opened.s3 });
  try {
    const results = await runPipeline({ spec, catalog: opened.catalog, io: opened.io, sources });
    for (const result of results) {
      const summary = result.snapshot.summary;
      print(
        `flow ${result.flowName}: ${result.created ? 'created' : 'updated'} ${formatIdentifier(result.table.identifier)} — ` +
          `${summary.operation} snapshot ${result.snapshot.snapshotId}, ${summary['added-records'] ?? '0'} rows in ` +
          `${result.dataFiles.length} data file(s); table now has ${summary['total-records'] ?? '?'} rows`,
      );
      // Shown so a misspelt column in the flow's SQL is noticed: it would otherwise become a new column.
      for (const change of result.schemaChanges) print(`  schema: ${describeChange(change)}`);
      if (result.absentColumns.length > 0) print(`  schema: no value for ${result.absentColumns.join(', ')} (written as null)`);
    }
    print(opened.description);
  } finally {
    try {
      await sources.close();
    } finally {
      await opened.close();
    }
  }
}

function describeChange(change: SchemaEvolutionChange): string {
  const column = change.path.join('.');
  return change.kind === 'add-column'
    ? `added column ${column} ${typeText(change.type)} (field id ${change.fieldId})`
    : `widened ${column} from ${typeText(change.from)} to ${typeText(change.to)}`;
}
