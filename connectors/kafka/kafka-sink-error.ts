/**
 * Publishing to Kafka failed: the brokers cannot be reached, the topic does not exist, a send was
 * refused, or a transaction could not commit. The message names the topic and the brokers; the
 * context says how many records were acknowledged before the failure (without a transaction they
 * stay in the topic, so retrying the whole publish duplicates them).
 */
import { ThundError, type ThundErrorOptions } from '../../src/errors.js';

export class KafkaSinkError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('KAFKA_SINK', message, options);
  }
}
