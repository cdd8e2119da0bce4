/**
 * When the HTTP layer may resend a request by itself: only a mutation carrying an
 * `Idempotency-Key` (the server replays the first final answer for the same key, ICEBERG.md §7.6),
 * and only after an answer that says nothing was decided (429, 502, 503, 504) or no answer at all.
 */

export interface TransportRetryOptions {
  /** Resends after the first attempt; default 3. */
  readonly maxRetries?: number;
  /** First backoff; doubled per retry, with jitter; default 250 ms. */
  readonly baseDelayMs?: number;
  /** Upper bound for any wait, including a server's Retry-After; default 10 s. */
  readonly maxDelayMs?: number;
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface ResolvedRetry {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export function resolveRetry(options: TransportRetryOptions = {}): ResolvedRetry {
  return { maxRetries: options.maxRetries ?? 3, baseDelayMs: options.baseDelayMs ?? 250, maxDelayMs: options.maxDelayMs ?? 10_000 };
}

/** Milliseconds to wait before retry number `retry` (1-based); a Retry-After header wins when present. */
export function retryDelayMs(policy: ResolvedRetry, retry: number, retryAfter: string | null | undefined): number {
  const fromServer = parseRetryAfter(retryAfter);
  if (fromServer !== undefined) return Math.min(fromServer, policy.maxDelayMs);
  const exponential = policy.baseDelayMs * 2 ** (retry - 1);
  return Math.min(policy.maxDelayMs, exponential / 2 + Math.random() * (exponential / 2));
}

/** `Retry-After` as delta-seconds or an HTTP date. */
function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
