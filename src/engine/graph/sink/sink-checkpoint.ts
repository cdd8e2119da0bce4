/**
 * The checkpoint record of a flow into a Kafka sink: key `<pipeline>/<flow>`, value the same JSON
 * a table's streaming checkpoint.json holds (checkpoint-store.ts: version, flow, batches, positions
 * per streamed input, state files), with no state files, as a flow into a sink is stateless.
 * It is written in the transaction that publishes the batch it describes.
 */
import { InvalidInputError } from '../../../errors.js';
import { CHECKPOINT, type Checkpoint } from '../streaming/checkpoint-store.js';

/** Per streamed input (dataset name), the items (files) already published. */
export type StreamPositions = Checkpoint['positions'];

export function checkpointKey(pipeline: string, flowName: string): string {
  return `${pipeline}/${flowName}`;
}

export function encodeCheckpoint(flowName: string, batches: number, positions: StreamPositions): Buffer {
  const sorted = Object.fromEntries(Object.entries(positions).sort(([a], [b]) => a.localeCompare(b)).map(([input, items]) => [input, [...items].sort()]));
  const body: Checkpoint = { version: 1, flow: flowName, batches, positions: sorted, stateFiles: [] };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** `where` names the record for messages (topic and key). */
export function decodeCheckpoint(flowName: string, value: Buffer, where: string): Checkpoint {
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch (error) {
    throw unreadable(flowName, where, 'it is not JSON', error);
  }
  const parsed = CHECKPOINT.safeParse(json);
  if (!parsed.success) throw unreadable(flowName, where, parsed.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; '));
  if (parsed.data.flow !== flowName) throw unreadable(flowName, where, `it belongs to flow ${parsed.data.flow}`);
  if (parsed.data.stateFiles.length > 0) throw unreadable(flowName, where, 'it lists operator state files, which a flow into a sink does not have');
  return parsed.data;
}

function unreadable(flowName: string, where: string, why: string, cause?: unknown): InvalidInputError {
  return new InvalidInputError(`flow ${flowName}: the checkpoint record ${where} is not one of this flow's (${why}); run with --full-refresh to start over`, {
    ...(cause === undefined ? {} : { cause }),
    context: { flow: flowName },
  });
}
