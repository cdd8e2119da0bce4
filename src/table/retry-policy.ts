/**
 * Commit retry settings from table properties (Iceberg's `commit.retry.*`, same defaults).
 */
export interface RetryPolicy {
  readonly numRetries: number;
  readonly minWaitMs: number;
  readonly maxWaitMs: number;
  readonly totalTimeoutMs: number;
}

export function retryPolicy(properties: Readonly<Record<string, string>>): RetryPolicy {
  return {
    numRetries: intProperty(properties, 'commit.retry.num-retries', 4),
    minWaitMs: intProperty(properties, 'commit.retry.min-wait-ms', 100),
    maxWaitMs: intProperty(properties, 'commit.retry.max-wait-ms', 60_000),
    totalTimeoutMs: intProperty(properties, 'commit.retry.total-timeout-ms', 1_800_000),
  };
}

/** Exponential backoff with full jitter for the given (1-based) retry. */
export function backoffMs(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.maxWaitMs, policy.minWaitMs * 2 ** (retry - 1));
  return policy.minWaitMs + Math.floor(Math.random() * Math.max(0, ceiling - policy.minWaitMs));
}

function intProperty(properties: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const value = Number.parseInt(properties[key] ?? '', 10);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}
