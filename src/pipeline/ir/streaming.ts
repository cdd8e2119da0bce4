/** Streaming settings: event-time watermarks, triggers and output modes (Structured Streaming). */
import type { Duration } from './duration.js';

/** Watermark = max event time seen − delay; rows older than it leave stateful operators. */
export interface Watermark {
  readonly column: string;
  readonly delay: Duration;
}

export type Trigger =
  | { readonly kind: 'processing-time'; readonly interval: Duration }
  | { readonly kind: 'once' }
  | { readonly kind: 'available-now' };

export type TriggerKind = Trigger['kind'];

export const TRIGGER_KINDS: readonly TriggerKind[] = ['processing-time', 'once', 'available-now'];

/** append: final rows once; update: changed rows as upserts; complete: the whole result. */
export type OutputMode = 'append' | 'update' | 'complete';

export const OUTPUT_MODES: readonly OutputMode[] = ['append', 'update', 'complete'];

export interface StreamingSettings {
  readonly watermark?: Watermark;
  readonly trigger?: Trigger;
}
