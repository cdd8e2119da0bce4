/**
 * What a command working on a pipeline's tables needs: its catalog (with the storage it reaches)
 * and a Parquet source connector using the same S3 settings; both closed when the work ends.
 */
import { createParquetSourceConnector, type ClosableSourceConnector } from '../../connectors/parquet/parquet-source.js';
import type { PipelineDefinition } from '../pipeline/spec-to-ir.js';
import { openCatalog, type CatalogOverrides, type OpenedCatalog } from './open-catalog.js';

export async function withPipelineResources<T>(
  definition: PipelineDefinition,
  overrides: CatalogOverrides,
  use: (opened: OpenedCatalog, sources: ClosableSourceConnector) => Promise<T>,
): Promise<T> {
  const opened = await openCatalog(definition, overrides);
  const sources = createParquetSourceConnector(opened.s3 === undefined ? {} : { s3: opened.s3 });
  try {
    return await use(opened, sources);
  } finally {
    try {
      await sources.close();
    } finally {
      await opened.close();
    }
  }
}
