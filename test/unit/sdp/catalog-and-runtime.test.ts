/**
 * Catalog settings written into spark-pipeline.yml (never a secret), the secrets' templates for
 * run time, the spec file itself, and the reading of spark-pipelines' event lines.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parsePipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { pluginCatalogConfig, sparkCatalogConfig } from '../../../src/sdp/catalog-conf.js';
import { lowerPipeline } from '../../../src/sdp/lower-pipeline.js';
import { flowNameResolver, parsePipelineLine } from '../../../src/sdp/pipeline-event-lines.js';
import { specFileText } from '../../../src/sdp/pipeline-spec-file.js';
import { parseSparkVersion, sdpFeatures } from '../../../src/sdp/spark-version.js';

function definition(catalog: string[]) {
  const parsed = parsePipelineDefinition(['pipeline: p', ...catalog, ''].join('\n'), '/specs/p.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  return parsed.definition;
}

describe('sparkCatalogConfig', () => {
  it('embedded catalog: Iceberg JDBC on the SQLite file, warehouse relative to the spec, the catalog name from the block', () => {
    const d = definition(['catalog: { type: sql, name: lakehouse, warehouse: wh }']);
    const conf = sparkCatalogConfig(d.catalog, d.storage, d.specPath, {});
    expect(conf.name).toBe('lakehouse');
    expect(conf.configuration).toEqual({
      'spark.sql.catalog.lakehouse': 'org.apache.iceberg.spark.SparkCatalog',
      'spark.sql.catalog.lakehouse.type': 'jdbc',
      'spark.sql.catalog.lakehouse.uri': 'jdbc:sqlite:/specs/wh/catalog.db',
      'spark.sql.catalog.lakehouse.warehouse': 'file:///specs/wh',
    });
    expect(conf.secretConfs).toEqual([]);
  });

  it('REST with a bearer token and S3 keys: URIs substituted, secrets only as variable templates', () => {
    const d = definition([
      'catalog: { type: rest, uri: "${REST_URI}", auth: { type: bearer, token_env: REST_TOKEN }, access_delegation: vended-credentials }',
      'storage: { s3: { endpoint: "http://127.0.0.1:9000", region: us-east-1, path_style: true, access_key_id_env: KEY_ID, secret_access_key_env: KEY_SECRET } }',
    ]);
    const env = { REST_URI: 'http://127.0.0.1:8181', REST_TOKEN: 'token-value', KEY_ID: 'id-value', KEY_SECRET: 'secret-value' };
    const conf = sparkCatalogConfig(d.catalog, d.storage, d.specPath, env);
    expect(conf.configuration['spark.sql.catalog.default.uri']).toBe('http://127.0.0.1:8181');
    expect(conf.configuration['spark.sql.catalog.default.io-impl']).toBe('org.apache.iceberg.aws.s3.S3FileIO');
    expect(conf.configuration['spark.sql.catalog.default.header.X-Iceberg-Access-Delegation']).toBe('vended-credentials');
    expect(conf.secretConfs).toEqual([
      { key: 'spark.sql.catalog.default.token', template: '${REST_TOKEN}' },
      { key: 'spark.sql.catalog.default.s3.access-key-id', template: '${KEY_ID}' },
      { key: 'spark.sql.catalog.default.s3.secret-access-key', template: '${KEY_SECRET}' },
    ]);
    const spec = specFileText({ name: 'p', storage: 'file:///out/storage', catalog: conf, header: '# h' });
    for (const secret of ['token-value', 'id-value', 'secret-value']) expect(spec).not.toContain(secret);
    expect(conf.needsAwsBundle).toBe(true);
  });

  it('a missing variable names the field and the variable', () => {
    const d = definition(['catalog: { type: rest, uri: "${NOT_SET_ANYWHERE}" }']);
    expect(() => sparkCatalogConfig(d.catalog, d.storage, d.specPath, {})).toThrow(/catalog\.uri: environment variable NOT_SET_ANYWHERE is not set/);
  });
});

describe('spark-pipeline.yml', () => {
  it('has exactly the keys SDP allows, string configuration values, and the definitions glob', () => {
    const d = definition([]);
    const conf = sparkCatalogConfig(d.catalog, d.storage, d.specPath, {}, { warehouse: '/wh' });
    const spec = parse(specFileText({ name: 'p', storage: 'file:///out/storage', catalog: conf, header: '# generated' })) as Record<string, unknown>;
    expect(Object.keys(spec)).toEqual(['name', 'storage', 'configuration', 'libraries']);
    expect(spec['libraries']).toEqual([{ glob: { include: 'transformations/**' } }]);
    expect(Object.values(spec['configuration'] as object).every((value) => typeof value === 'string')).toBe(true);
  });
});

describe('pluginCatalogConfig', () => {
  it('registers the plugin class under the name, and the report says its tables are that catalog\'s, not Iceberg\'s', () => {
    const conf = pluginCatalogConfig('cdc', 'org.example.RowLevelCatalog');
    expect(conf.configuration).toEqual({ 'spark.sql.catalog.cdc': 'org.example.RowLevelCatalog' });
    const report = lowerPipeline(definition([]).graph, { sparkVersion: parseSparkVersion('4.2'), catalog: conf, storage: 'file:///s', sourceName: 'p' }).report;
    expect(report.notes[0]).toBe("tables are tables of Spark catalog cdc (org.example.RowLevelCatalog), which must be on Spark's classpath");
    expect(report.notes.join(' ')).not.toMatch(/iceberg/i);
  });
});

describe('spark versions', () => {
  it('AUTO CDC from 4.2; below 4.1 is refused', () => {
    expect(sdpFeatures(parseSparkVersion('4.1.4')).autoCdcScd1).toBe(false);
    expect(sdpFeatures(parseSparkVersion('4.2')).autoCdcScd1).toBe(true);
    expect(sdpFeatures(parseSparkVersion('5.0')).autoCdcScd1).toBe(true);
    expect(() => parseSparkVersion('4.0.5')).toThrow(/4\.1 or later/);
    expect(() => parseSparkVersion('four')).toThrow(/must look like/);
  });
});

describe('spark-pipelines event lines', () => {
  it('reads flow and run states as spark-pipelines 4.1 prints them', () => {
    expect(parsePipelineLine('2026-11-30 23:10:39: Flow thund.lake.mv1 is RUNNING.')).toEqual({ type: 'flow', flow: 'thund.lake.mv1', state: 'RUNNING' });
    expect(parsePipelineLine("2026-11-30 23:10:39: Flow 'thund.lake.pv' has FAILED.")).toEqual({ type: 'flow', flow: 'thund.lake.pv', state: 'FAILED' });
    expect(parsePipelineLine('2026-11-30 23:10:49: Run is COMPLETED.')).toEqual({ type: 'run', state: 'COMPLETED' });
    expect(parsePipelineLine('Error: [SCHEMA_NOT_FOUND] The schema x cannot be found.').type).toBe('error');
    expect(parsePipelineLine('Using Spark default log4j profile').type).toBe('other');
  });

  it('maps SDP flow names back: qualified table names for implicit flows, plain or qualified names for named flows', () => {
    const resolve = flowNameResolver(new Map([['default.lake.totals', 'lake.totals'], ['load', 'load']]));
    expect(resolve('default.lake.totals')).toBe('lake.totals');
    expect(resolve('spark_catalog.default.load')).toBe('load');
    expect(resolve('load')).toBe('load');
    expect(resolve('other')).toBeUndefined();
  });
});
