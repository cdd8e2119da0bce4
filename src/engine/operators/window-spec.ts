/**
 * Event-time windows: which windows a row belongs to, as SQL over a relation carrying the event
 * time in epoch microseconds (`__ts`). Boundaries are aligned to the Unix epoch, as Spark's
 * `window()` aligns them. Each assigned row gets `__ws` and `__we` (window start inclusive, end
 * exclusive, epoch microseconds).
 */
import { InvalidInputError } from '../../errors.js';
import { durationMicros } from './duration.js';
import { identList } from './sql.js';

export type WindowSpec =
  | { readonly kind: 'tumbling'; readonly size: string }
  /** One window that never ends: a streaming aggregation without a window (GROUP BY kind). */
  | { readonly kind: 'global' }
  | { readonly kind: 'sliding'; readonly size: string; readonly slide: string }
  | { readonly kind: 'session'; readonly gap: string };

export type ResolvedWindow =
  | { readonly kind: 'tumbling'; readonly size: bigint }
  | { readonly kind: 'global' }
  | { readonly kind: 'sliding'; readonly size: bigint; readonly slide: bigint }
  | { readonly kind: 'session'; readonly gap: bigint };

export function resolveWindow(spec: WindowSpec): ResolvedWindow {
  switch (spec.kind) {
    case 'tumbling':
      return { kind: 'tumbling', size: durationMicros(spec.size, 'Tumbling window size') };
    case 'global':
      return spec;
    case 'sliding': {
      const size = durationMicros(spec.size, 'Sliding window size');
      const slide = durationMicros(spec.slide, 'Sliding window slide');
      if (slide > size) throw new InvalidInputError(`Sliding window slide ${spec.slide} is longer than its size ${spec.size}`);
      return { kind: 'sliding', size, slide };
    }
    case 'session':
      return { kind: 'session', gap: durationMicros(spec.gap, 'Session window gap') };
  }
}

function floorTo(expr: string, step: bigint): string {
  return `(${expr} - ((${expr} % ${step}) + ${step}) % ${step})`;
}

/** The end of the global window: the largest epoch microsecond, which no watermark reaches. */
export const NEVER_ENDS = 9223372036854775807n;

/** Rows of `relation` with `__ws`/`__we`, one row per window the row belongs to. */
export function assignWindowsSql(window: ResolvedWindow, relation: string, keys: readonly string[]): string {
  switch (window.kind) {
    case 'global':
      return `SELECT *, 0::BIGINT AS __ws, ${NEVER_ENDS}::BIGINT AS __we FROM ${relation}`;
    case 'tumbling':
      return `SELECT *, ${floorTo('__ts', window.size)} AS __ws, ${floorTo('__ts', window.size)} + ${window.size} AS __we FROM ${relation}`;
    case 'sliding': {
      const count = (window.size + window.slide - 1n) / window.slide;
      const start = `(${floorTo('r.__ts', window.slide)} - w.i * ${window.slide})`;
      return `SELECT r.*, ${start} AS __ws, ${start} + ${window.size} AS __we
              FROM ${relation} r, (SELECT range AS i FROM range(${count})) w
              WHERE ${start} + ${window.size} > r.__ts`;
    }
    case 'session': {
      const partition = keys.length === 0 ? '' : `PARTITION BY ${identList(keys)}`;
      // Sorted by time, a row opens a new session when it is at least `gap` after the row before.
      const flagged = `SELECT *, CASE WHEN lag(__ts) OVER (${partition} ORDER BY __ts) + ${window.gap} > __ts THEN 0 ELSE 1 END AS __new_session FROM ${relation}`;
      const numbered = `SELECT *, sum(__new_session) OVER (${partition} ORDER BY __ts ROWS UNBOUNDED PRECEDING) AS __session FROM (${flagged})`;
      const sessionPartition = `PARTITION BY ${keys.length === 0 ? '' : `${identList(keys)}, `}__session`;
      return `SELECT * EXCLUDE (__new_session, __session), min(__ts) OVER (${sessionPartition}) AS __ws, max(__ts) OVER (${sessionPartition}) + ${window.gap} AS __we FROM (${numbered})`;
    }
  }
}

/**
 * Epoch microseconds of the last window end a row at `__ts` belongs to. A session starting at the
 * row ends at least `gap` after it. Spark drops a row only when this end is at or before the
 * watermark: every window the row could join has then been finalised.
 */
export function lastWindowEndSql(window: ResolvedWindow): string {
  switch (window.kind) {
    case 'tumbling':
      return `${floorTo('__ts', window.size)} + ${window.size}`;
    case 'sliding':
      return `${floorTo('__ts', window.slide)} + ${window.size}`;
    case 'session':
      return `__ts + ${window.gap}`;
    case 'global':
      return `${NEVER_ENDS}::BIGINT`;
  }
}
