/**
 * `thund run <pipeline.yaml>`: run a batch pipeline on the embedded catalog.
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import { parquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import { runPipeline } from '../../engine/run-pipeline.js';
import { loadPipelineSpec } from '../../pipeline/spec.js';
import { openEmbeddedCatalog, type EmbeddedCatalogOptions } from '../embedded-catalog.js';

export async function runCommand(specPath: string, options: EmbeddedCatalogOptions, print: (line: string) => void): Promise<void> {
  const spec = await loadPipelineSpec(specPath);
  const { catalog, io, warehousePath } = openEmbeddedCatalog(options);
  try {
    const results = await runPipeline({ spec, catalog, io, sources: parquetSourceConnector });
    for (const result of results) {
      const summary = result.snapshot.summary;
      print(
        `flow ${result.flowName}: ${result.created ? 'created' : 'updated'} ${formatIdentifier(result.table.identifier)} — ` +
          `${summary.operation} snapshot ${result.snapshot.snapshotId}, ${summary['added-records'] ?? '0'} rows in ` +
          `${result.dataFiles.length} data file(s); table now has ${summary['total-records'] ?? '?'} rows`,
      );
    }
    print(`warehouse: ${warehousePath}`);
  } finally {
    await catalog.close();
  }
}
