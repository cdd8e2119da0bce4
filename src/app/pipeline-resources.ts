/**
 * What work on a pipeline's tables needs: its catalog (with the storage it reaches) and a Parquet
 * source connector using the same S3 settings; both closed when the work ends.
 */
import { createParquetSourceConnector, type ClosableSourceConnector } from '../../connectors/parquet/parquet-source.js';
import type { ConnectionSource } from '../pipeline/resolve-connection.js';
import { openCatalog, type CatalogOverrides, type OpenedCatalog } from './open-catalog.js';

export interface PipelineResources {
  readonly opened: OpenedCatalog;
  readonly sources: ClosableSourceConnector;
  close(): Promise<void>;
}

export async function openPipelineResources(connection: ConnectionSource, overrides: CatalogOverrides): Promise<PipelineResources> {
  const opened = await openCatalog(connection, overrides);
  const sources = createParquetSourceConnector(opened.s3 === undefined ? {} : { s3: opened.s3 });
  return {
    opened,
    sources,
    close: async () => {
      try {
        await sources.close();
      } finally {
        await opened.close();
      }
    },
  };
}

export async function withPipelineResources<T>(
  connection: ConnectionSource,
  overrides: CatalogOverrides,
  use: (opened: OpenedCatalog, sources: ClosableSourceConnector) => Promise<T>,
): Promise<T> {
  const resources = await openPipelineResources(connection, overrides);
  try {
    return await use(resources.opened, resources.sources);
  } finally {
    await resources.close();
  }
}
