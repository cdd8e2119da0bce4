import { describe, expect, it } from 'vitest';
import type { KafkaSourceOptions } from '../../../src/pipeline/ir/dataset.js';
import { formatProblem } from '../../../src/pipeline/problems.js';
import { parsePipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';

const SPEC = [
  'pipeline: p',
  'sources:',
  '  files: { format: parquet, path: ["${DATA}/a/*.parquet", "/fixed/b.parquet"] }',
  '  events: { format: kafka, topic: "${PREFIX}events", bootstrap_servers: "${BROKERS}", options: { client.id: "thund-${PREFIX}" } }',
  'sinks:',
  '  alerts: { format: kafka, options: { topic: alerts, bootstrap_servers: "${BROKERS}" } }',
  'tables:',
  '  lake.t: { sql: SELECT * FROM files }',
  'flows:',
  '  out: { target: alerts, sql: SELECT * FROM STREAM(events) }',
  '',
].join('\n');

const ENV = { DATA: '/data', PREFIX: 'dev_', BROKERS: '127.0.0.1:9092' };

describe('${NAME} in source and sink settings', () => {
  it('expands source paths, a Kafka source topic, servers and options, and sink options', () => {
    const result = parsePipelineDefinition(SPEC, 'p.yaml', ENV);
    if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
    const datasets = new Map(result.definition.graph.datasets.map((dataset) => [dataset.name, dataset]));
    const files = datasets.get('files');
    expect(files?.kind === 'source' && files.source.format === 'parquet' ? files.source.paths : undefined).toEqual(['/data/a/*.parquet', '/fixed/b.parquet']);
    const events = datasets.get('events');
    const kafka = (events?.kind === 'source' ? events.source : undefined) as KafkaSourceOptions | undefined;
    expect(kafka).toMatchObject({ topic: 'dev_events', bootstrapServers: '127.0.0.1:9092', options: { 'client.id': 'thund-dev_' } });
    const alerts = datasets.get('alerts');
    expect(alerts?.kind === 'sink' ? alerts.options : undefined).toEqual({ topic: 'alerts', bootstrap_servers: '127.0.0.1:9092' });
  });

  it('names every unset variable with its field, line and column', () => {
    const result = parsePipelineDefinition(SPEC, 'p.yaml', { PREFIX: 'x' });
    expect(result.ok).toBe(false);
    const lines = result.ok ? [] : result.problems.map(formatProblem);
    expect(lines).toEqual([
      expect.stringMatching(/^p\.yaml:3:\d+ THUND_E_SPEC sources\.files\.path\[0\]: environment variable DATA is not set \(referenced as \$\{DATA\}\)$/),
      expect.stringMatching(/^p\.yaml:4:\d+ THUND_E_SPEC sources\.events\.bootstrap_servers: environment variable BROKERS is not set/),
      expect.stringMatching(/^p\.yaml:6:\d+ THUND_E_SPEC sinks\.alerts\.options\.bootstrap_servers: environment variable BROKERS is not set/),
    ]);
  });

  it('refuses a malformed reference', () => {
    const result = parsePipelineDefinition(SPEC.replace('${DATA}', '${data}'), 'p.yaml', ENV);
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([expect.stringMatching(/sources\.files\.path\[0\]: "\$\{data\}" is not a valid reference/)]);
  });
});
