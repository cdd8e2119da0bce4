/**
 * The native backend over an opened catalog and its sources, as `thund run` and the package API's
 * runPipeline both start it (Kafka sources through the Kafka connector's offset streams).
 */
import { kafkaOffsetStreams } from '../../connectors/kafka/kafka-offset-streams.js';
import type { SourceConnector } from '../../connectors/source.js';
import { NativeBackend, type NativeBackendOptions } from '../backend/native/native-backend.js';
import type { OpenedCatalog } from './open-catalog.js';

export type RunObservers = Pick<NativeBackendOptions, 'onWrite' | 'onPublish'>;

export function nativeBackendFor(opened: OpenedCatalog, sources: SourceConnector, observers: RunObservers = {}): NativeBackend {
  return new NativeBackend({ catalog: opened.catalog, io: opened.io, sources, streams: kafkaOffsetStreams(), ...observers });
}
