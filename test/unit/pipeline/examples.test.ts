/**
 * The example pipelines parse, and the REST quickstart is the quickstart (same sources, table and
 * flow) with only a catalog and a storage block added, so what the interop tests prove for one
 * holds for the other.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../../src/pipeline/resolve-connection.js';
import { loadPipelineSpec } from '../../../src/pipeline/spec.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples');

describe('examples/quickstart-rest', () => {
  it('is the quickstart with a REST catalog and S3 storage, configured from the environment', async () => {
    const local = await loadPipelineSpec(path.join(EXAMPLES, 'quickstart/pipeline.yaml'));
    const rest = await loadPipelineSpec(path.join(EXAMPLES, 'quickstart-rest/pipeline.yaml'));
    expect(rest.sources.map((s) => s.paths)).toEqual(local.sources.map((s) => s.paths));
    expect(rest.tables.map(({ key, mode, properties }) => ({ key, mode, properties }))).toEqual(
      local.tables.map(({ key, mode, properties }) => ({ key, mode, properties })),
    );
    expect(rest.flows.map(({ name, target, sql }) => ({ name, target, sql }))).toEqual(local.flows.map(({ name, target, sql }) => ({ name, target, sql })));
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
