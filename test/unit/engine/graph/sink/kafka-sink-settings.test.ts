/**
 * A kafka sink's options as a flow publishes with them: the connector's options plus the engine's
 * (checkpoint topic, batch limits), the flow's own transactional id, and errors that name the sink.
 */
import { describe, expect, it } from 'vitest';
import { kafkaSinkSettings } from '../../../../../src/engine/graph/sink/kafka-sink-settings.js';
import { InvalidInputError } from '../../../../../src/errors.js';
import type { SinkDataset } from '../../../../../src/pipeline/ir/dataset.js';

const sink = (options: Record<string, string>, format = 'kafka'): SinkDataset => ({
  kind: 'sink',
  name: 'alerts',
  format,
  options,
  expectations: [],
  origin: { file: 'pipeline.yaml', line: 12, column: 3 },
});
const env = { THUND_KAFKA_BROKERS: 'k1:9092' };

describe('kafka sink settings', () => {
  it('derives the transactional id from pipeline and flow, or from the transactional_id option', () => {
    const plain = kafkaSinkSettings('shop', 'export_alerts', sink({ topic: 'alerts' }), env);
    expect(plain.publish.transactionalId).toBe('thund.shop.export_alerts');
    expect(plain.publish.brokers).toEqual(['k1:9092']);
    expect(plain.checkpointTopic).toBe('thund-checkpoints');
    const named = kafkaSinkSettings('shop', 'export_alerts', sink({ topic: 'alerts', transactional_id: 'alerts-publisher' }), env);
    expect(named.publish.transactionalId).toBe('alerts-publisher.export_alerts');
  });

  it('takes the checkpoint topic and batch limits out of the connector options', () => {
    const settings = kafkaSinkSettings(
      'shop',
      'f',
      sink({ topic: 'alerts', checkpoint_topic: 'shop-positions', 'thund.stream.max-files-per-batch': '2', 'thund.stream.max-rows-per-batch': '500', key_columns: 'id' }),
      env,
    );
    expect(settings.checkpointTopic).toBe('shop-positions');
    expect(settings.batchLimits).toEqual({ maxFiles: 2, maxRows: 500 });
    expect(settings.publish.keyColumns).toEqual(['id']);
  });

  it('names the sink when an option is missing or wrong', () => {
    expect(() => kafkaSinkSettings('shop', 'f', sink({ bootstrap_servers: 'h:1' }), {})).toThrow('Kafka sink "alerts": topic: is required');
    expect(() => kafkaSinkSettings('shop', 'f', sink({ topic: 'a', checkpoint_topic: 'no spaces' }), env)).toThrow('Kafka sink "alerts": checkpoint_topic: a Kafka topic name');
    expect(() => kafkaSinkSettings('shop', 'f', sink({ topic: 'a', 'thund.stream.max-files-per-batch': '0' }), env)).toThrow(/max-files-per-batch must be a positive integer/);
  });

  it('refuses other sink formats, naming format, sink and where it is declared', () => {
    expect(() => kafkaSinkSettings('shop', 'f', sink({ path: '/tmp/x' }, 'delta'), env)).toThrow(InvalidInputError);
    expect(() => kafkaSinkSettings('shop', 'f', sink({ path: '/tmp/x' }, 'delta'), env)).toThrow(
      'pipeline.yaml:12:3: sink alerts has format delta; the native engine publishes to format kafka sinks only',
    );
  });
});
