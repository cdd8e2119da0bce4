/**
 * The example pipelines parse, and the REST quickstart is the quickstart (same sources, table and
 * flow) with only a catalog and a storage block added, so what the interop tests prove for one
 * holds for the other.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../../src/pipeline/resolve-connection.js';
import { isTableDataset } from '../../../src/pipeline/ir/dataset.js';
import { loadDefinitionOrThrow } from './definition-or-throw.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples');

describe('examples/quickstart-rest', () => {
  it('is the quickstart with a REST catalog and S3 storage, configured from the environment', async () => {
    const local = await loadDefinitionOrThrow(path.join(EXAMPLES, 'quickstart/pipeline.yaml'));
    const rest = await loadDefinitionOrThrow(path.join(EXAMPLES, 'quickstart-rest/pipeline.yaml'));
    const sources = (graph: typeof local.graph) => graph.datasets.flatMap((d) => (d.kind === 'source' && d.source.format === 'parquet' ? [d.source.paths] : []));
    const tables = (graph: typeof local.graph) => graph.datasets.filter(isTableDataset).map(({ name, kind, table }) => ({ name, kind, table }));
    const flows = (graph: typeof local.graph) => graph.flows.map(({ name, target, kind, outputMode, query }) => ({ name, target, kind, outputMode, sql: query.text }));
    expect(sources(rest.graph)).toEqual(sources(local.graph));
    expect(sources(local.graph)).toHaveLength(1);
    expect(tables(rest.graph)).toEqual(tables(local.graph));
    expect(flows(rest.graph)).toEqual(flows(local.graph));
    expect(flows(local.graph)).toHaveLength(1);
    expect(local.catalog).toEqual({ type: 'sql' });

    const env = {
      THUND_REST_URI: 'http://rest:8181',
      THUND_S3_ENDPOINT: 'http://minio:9000',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
    };
    expect(resolveConnection(rest, env)).toEqual({
      catalog: { type: 'rest', uri: 'http://rest:8181' },
      s3: { endpoint: 'http://minio:9000', region: 'us-east-1', pathStyle: true, keys: { accessKeyId: 'id', secretAccessKey: 'secret' } },
    });
  });
});
