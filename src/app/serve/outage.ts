/**
 * A dependency outage as `thund serve` rides it out: a trigger that failed on Kafka, the catalog
 * or storage with an error its client marked retryable is tried again after a backoff that doubles
 * up to a cap, instead of ending the service. The outage starts with the first sign of it: a
 * readiness probe of Kafka or the catalog that got no answer (seconds, while the trigger under way
 * may still be waiting on its client's retries), or a failed trigger. It is logged once when it
 * starts (what, since when, the error), again every `warnEveryMs` while it lasts, and once when a
 * trigger completes (how long it lasted). With `giveUpAfterMs`, an outage that outlasts it ends
 * the service.
 */
import type { RunError } from '../../backend/run-event.js';
import { ThundError } from '../../errors.js';
import type { Logger } from './json-logger.js';
import { failedDependency, type NotReadyReason } from './readiness.js';

export interface OutageOptions {
  readonly logger: Logger;
  /** Default: never give up. */
  readonly giveUpAfterMs?: number;
  readonly warnEveryMs?: number;
  readonly firstBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly now?: () => number;
}

export const OUTAGE_STARTED = 'outage: a dependency does not answer; retrying with backoff';

interface Current {
  readonly dependency: NotReadyReason;
  readonly since: number;
  failures: number;
  lastWarnedAt: number;
  lastError: RunError;
}

export class OutageTracker {
  private current: Current | undefined;
  private readonly now: () => number;

  constructor(private readonly options: OutageOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Whether a failed trigger is an outage to ride out (else the service stops on it): what its
   * client marked retryable (no answer, a timeout, a 5xx, a lost commit race), and a commit whose
   * outcome stayed unknown (the next trigger reads the positions the table really holds). A refusal
   * (401, 403, a bad request, a schema that does not fit) is not: retrying cannot mend it.
   */
  static isOutage(error: RunError): boolean {
    return error.retryable || error.code === 'COMMIT_STATE_UNKNOWN';
  }

  /** A readiness probe got no answer: the outage starts now, if none is in course. */
  probeFailed(dependency: Extract<NotReadyReason, 'kafka' | 'catalog'>, timeoutMs: number): void {
    if (this.current !== undefined) return;
    this.start(dependency, { code: 'PROBE', message: `${dependency === 'kafka' ? 'the Kafka brokers' : 'the catalog'} did not answer its readiness probe within ${timeoutMs} ms`, retryable: true });
  }

  /** Records a failed trigger of an outage; the wait before the next trigger. Throws once it outlasts giveUpAfterMs. */
  failed(error: RunError): number {
    const now = this.now();
    const dependency = failedDependency(error);
    let outage = this.current;
    if (outage === undefined) {
      outage = this.start(dependency, error);
    } else if (now - outage.lastWarnedAt >= (this.options.warnEveryMs ?? 60_000)) {
      outage.lastWarnedAt = now;
      this.options.logger.log('warn', 'outage continues', { dependency: outage.dependency, forMs: now - outage.since, failures: outage.failures + 1, code: error.code, error: error.message });
    }
    outage.failures += 1;
    outage.lastError = error;
    const giveUp = this.options.giveUpAfterMs;
    if (giveUp !== undefined && now - outage.since >= giveUp) {
      throw new ThundError(error.code, `${outage.dependency} outage for ${Math.round((now - outage.since) / 1000)} s, longer than the ${Math.round(giveUp / 1000)} s allowed: ${error.message}`, { retryable: false });
    }
    const first = this.options.firstBackoffMs ?? 1_000;
    return Math.min(this.options.maxBackoffMs ?? 30_000, first * 2 ** Math.min(outage.failures - 1, 20));
  }

  private start(dependency: NotReadyReason, error: RunError): Current {
    const now = this.now();
    const outage: Current = { dependency, since: now, failures: 0, lastWarnedAt: now, lastError: error };
    this.current = outage;
    this.options.logger.log('warn', OUTAGE_STARTED, { dependency, since: new Date(now).toISOString(), code: error.code, error: error.message });
    return outage;
  }

  /** A trigger completed: an outage in course ended; `behind` says how far the sources are behind. */
  recovered(behind: Readonly<Record<string, unknown>> = {}): void {
    const outage = this.current;
    if (outage === undefined) return;
    this.current = undefined;
    this.options.logger.log('info', 'outage ended', { dependency: outage.dependency, lastedMs: this.now() - outage.since, failedTriggers: outage.failures, ...behind });
  }
}
