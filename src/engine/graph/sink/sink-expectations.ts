/**
 * A sink's expectations on one flow output (a batch flow's result or one micro-batch), checked
 * before anything of it is published. A `fail` expectation stops the flow with an error naming
 * the expectation, the flow and the sink; the caller has not begun the Kafka transaction then,
 * so neither rows nor a checkpoint record of that output reach the topic.
 */
import { ThundError } from '../../../errors.js';
import { ExpectationFailedError } from '../../operators/operator-errors.js';
import { checkExpectations, type CheckedOutput } from '../expectation-step.js';
import type { SinkFlowContext } from './sink-flow-context.js';

/** What a failure left unpublished, for its message: the whole flow or one micro-batch. */
export type UnpublishedScope = 'flow' | 'micro-batch';

export async function checkSinkExpectations(context: SinkFlowContext, input: string, output: string, scope: UnpublishedScope): Promise<CheckedOutput> {
  try {
    return await checkExpectations(context.session, context.target, input, output);
  } catch (error) {
    if (!(error instanceof ExpectationFailedError)) throw error;
    const { flow, target } = context;
    const unpublished = scope === 'flow' ? 'nothing of this flow was published' : 'nothing of this micro-batch was published and its checkpoint was not committed';
    throw new ThundError(error.code, `Flow "${flow.name}" into sink "${target.name}": ${error.message}; ${unpublished}`, {
      cause: error,
      context: { ...error.context, flow: flow.name, sink: target.name },
    });
  }
}
