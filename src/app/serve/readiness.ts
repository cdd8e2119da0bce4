/**
 * Whether `thund serve` can make progress, known before anyone asks: the catalog and the Kafka
 * brokers are probed in the background (every few seconds, each probe bounded by a timeout) and
 * every trigger's outcome says whether Kafka, the catalog or storage held it up. /readyz, /metrics and /status read the last
 * known state, so they answer at once whatever a dependency is doing.
 *
 * Not ready, with the reasons: `catalog` or `kafka` (its last probe failed or did not answer in time),
 * `assigning` (no trigger has completed yet: joining the group, reading the first batch),
 * `kafka`, `storage` or `catalog` (the last trigger failed on it), `failing` (the last trigger
 * failed on something else).
 */
import type { RunError } from '../../backend/run-event.js';

export type NotReadyReason = 'catalog' | 'assigning' | 'kafka' | 'storage' | 'failing';

export interface ReadinessState {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, boolean>>;
  readonly reasons: readonly NotReadyReason[];
}

export interface ReadinessOptions {
  /** Any answer, yes or no, means the catalog is reachable; a rejection or no answer in time, not. */
  readonly probeCatalog: () => Promise<unknown>;
  /** Resolves when the Kafka brokers answer; absent for a pipeline without Kafka sources. */
  readonly probeKafka?: () => Promise<unknown>;
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  /** Told after every probe that got no answer in time, naming what did not answer. */
  readonly onProbeFailed?: (dependency: 'catalog' | 'kafka') => void;
}

/** The dependency a failed trigger's error code names. */
export function failedDependency(error: RunError): NotReadyReason {
  if (error.code === 'STORAGE') return 'storage';
  if (/KAFKA/.test(error.code)) return 'kafka';
  if (/^(REST|GLUE|CATALOG|SQL_CATALOG|COMMIT_STATE_UNKNOWN)/.test(error.code)) return 'catalog';
  return 'failing';
}

export class Readiness {
  private catalogReachable = false;
  private kafkaReachable = true;
  private probed = false;
  private firstTriggerDone = false;
  private lastTriggerFailure: NotReadyReason | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(private readonly options: ReadinessOptions) {}

  /** Probes at once, then every interval until stop(). */
  start(): void {
    void this.probe();
    this.timer = setInterval(() => void this.probe(), this.options.intervalMs ?? 5_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** One probe of the catalog and of Kafka, each bounded by the timeout; a probe still waiting is not doubled. */
  async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      const { probeKafka } = this.options;
      [this.catalogReachable, this.kafkaReachable] = await Promise.all([this.answers(this.options.probeCatalog), probeKafka === undefined ? true : this.answers(probeKafka)]);
      this.probed = true;
      if (!this.catalogReachable) this.options.onProbeFailed?.('catalog');
      if (!this.kafkaReachable) this.options.onProbeFailed?.('kafka');
    } finally {
      this.probing = false;
    }
  }

  private async answers(probe: () => Promise<unknown>): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(false), this.options.timeoutMs ?? 2_000)));
    try {
      return await Promise.race([probe().then(() => true, () => false), timedOut]);
    } finally {
      clearTimeout(timeout);
    }
  }

  triggerCompleted(): void {
    this.firstTriggerDone = true;
    this.lastTriggerFailure = undefined;
  }

  triggerFailed(error: RunError): void {
    this.lastTriggerFailure = failedDependency(error);
  }

  state(): ReadinessState {
    const reasons: NotReadyReason[] = [];
    if (!this.catalogReachable) reasons.push('catalog');
    if (!this.kafkaReachable) reasons.push('kafka');
    if (!this.firstTriggerDone) reasons.push('assigning');
    if (this.lastTriggerFailure !== undefined && !reasons.includes(this.lastTriggerFailure)) reasons.push(this.lastTriggerFailure);
    return {
      ready: reasons.length === 0,
      checks: {
        catalog: this.catalogReachable,
        ...(this.options.probeKafka === undefined ? {} : { kafka: this.kafkaReachable }),
        catalogProbed: this.probed,
        firstTrigger: this.firstTriggerDone,
        lastTrigger: this.lastTriggerFailure === undefined,
      },
      reasons,
    };
  }
}
