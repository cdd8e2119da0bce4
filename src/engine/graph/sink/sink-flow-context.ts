/**
 * What the graph runner hands a flow into a sink: the runner's session and graph like any flow,
 * the sink instead of a table, and how Kafka producers are made (kafkajs unless a caller such as
 * a test injects another ProducerClient).
 */
import type { KafkaJsProducerOptions } from '../../../../connectors/kafka/kafkajs-producer-client.js';
import type { ProducerClient } from '../../../../connectors/kafka/producer-client.js';
import type { FlowSkip } from '../../run-events.js';
import type { SinkDataset } from '../../../pipeline/ir/dataset.js';
import type { FlowContext, FlowOutcome } from '../flow-context.js';

export type ProducerClientFactory = (options: KafkaJsProducerOptions) => ProducerClient;

export interface SinkFlowContext extends Omit<FlowContext, 'target' | 'summary'> {
  readonly target: SinkDataset;
  readonly producerClient?: ProducerClientFactory;
}

/** Records a flow run published (all of them committed). */
export interface Published {
  readonly sink: string;
  readonly topic: string;
  readonly records: number;
}

export interface SinkFlowOutcome extends FlowOutcome {
  readonly published: Published;
  readonly skipped?: FlowSkip;
}
