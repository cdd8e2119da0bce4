/**
 * The Kafka source cannot continue from the positions it was given: a partition went back
 * (topic deleted and recreated, or the client reset itself), records were deleted by retention
 * before they were landed, or the client or an assignment listener failed.
 */
import { ThundError, type ThundErrorOptions } from '../../src/errors.js';

export class KafkaSourceError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('KAFKA_SOURCE', message, options);
  }
}
