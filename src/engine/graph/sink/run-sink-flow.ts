/**
 * A flow into a sink: the sink's options are checked (format kafka only), then the flow runs as
 * micro-batches when it reads a stream, else as one batch.
 */
import { isStreamingFlow } from '../flow-dispatch.js';
import { kafkaSinkSettings } from './kafka-sink-settings.js';
import { runSinkBatchFlow } from './sink-batch-step.js';
import type { SinkFlowContext, SinkFlowOutcome } from './sink-flow-context.js';
import { runSinkStreamingFlow } from './sink-streaming-step.js';

export async function runSinkFlow(context: SinkFlowContext): Promise<SinkFlowOutcome> {
  const settings = kafkaSinkSettings(context.graph.name, context.flow.name, context.target);
  return isStreamingFlow(context.flow) ? runSinkStreamingFlow(context, settings) : runSinkBatchFlow(context, settings);
}
