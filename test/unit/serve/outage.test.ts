/**
 * serve rides out an outage of Kafka, the catalog or storage: backoff doubling to a cap, one
 * warning when the outage starts, one per interval while it lasts, one line when it ends (how
 * long, how far behind); it gives up only after the configured time; other failures stop it.
 */
import { describe, expect, it } from 'vitest';
import { OUTAGE_STARTED, OutageTracker } from '../../../src/app/serve/outage.js';

function tracked(giveUpAfterMs?: number) {
  let now = Date.UTC(2026, 11, 6);
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const tracker = new OutageTracker({
    logger: { log: (level, message, fields = {}) => void lines.push({ level, message, fields: { ...fields } }) },
    now: () => now,
    warnEveryMs: 60_000,
    maxBackoffMs: 30_000,
    ...(giveUpAfterMs === undefined ? {} : { giveUpAfterMs }),
  });
  return { tracker, lines, advance: (ms: number) => (now += ms) };
}

const catalogDown = { code: 'REST_NETWORK', message: 'Cannot reach the REST catalog: fetch failed (ECONNREFUSED)', retryable: true };

describe('OutageTracker', () => {
  it('backs off 1, 2, 4 … s up to 30 s, warns at the start and every minute, and says when it ended', () => {
    const { tracker, lines, advance } = tracked();
    const waits: number[] = [];
    for (let failure = 0; failure < 8; failure += 1) {
      waits.push(tracker.failed(catalogDown));
      advance(waits.at(-1)!);
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', OUTAGE_STARTED],
      ['warn', 'outage continues'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ dependency: 'catalog', since: '2026-12-06T00:00:00.000Z', code: 'REST_NETWORK' });
    expect(lines[1]!.fields).toMatchObject({ dependency: 'catalog', forMs: 61_000, failures: 7 });
    tracker.recovered({ lagRecords: 1234 });
    expect(lines.at(-1)).toEqual({ level: 'info', message: 'outage ended', fields: { dependency: 'catalog', lastedMs: 121_000, failedTriggers: 8, lagRecords: 1234 } });
    // The next failure is a new outage, starting from the first backoff.
    expect(tracker.failed({ code: 'STORAGE', message: 'S3 PutObject timed out', retryable: true })).toBe(1_000);
    expect(lines.at(-1)!.fields).toMatchObject({ dependency: 'storage' });
  });

  it('starts the outage at the first probe that got no answer; the triggers that fail then belong to it', () => {
    const { tracker, lines, advance } = tracked();
    tracker.probeFailed('kafka', 2_000);
    advance(5_000);
    tracker.probeFailed('kafka', 2_000);
    advance(25_000);
    // The trigger under way fails once its client's retries run out: the same outage, no second start.
    expect(tracker.failed({ code: 'KAFKA_SOURCE', message: 'Connection timeout', retryable: true })).toBe(1_000);
    tracker.recovered({ lagRecords: 0 });
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', OUTAGE_STARTED],
      ['info', 'outage ended'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ dependency: 'kafka', since: '2026-12-06T00:00:00.000Z', code: 'PROBE', error: 'the Kafka brokers did not answer its readiness probe within 2000 ms' });
    expect(lines[1]!.fields).toMatchObject({ dependency: 'kafka', lastedMs: 30_000, failedTriggers: 1 });
  });

  it('gives up after the configured time, naming the dependency and how long', () => {
    const { tracker, advance } = tracked(60_000);
    tracker.failed(catalogDown);
    advance(59_000);
    tracker.failed(catalogDown);
    advance(2_000);
    expect(() => tracker.failed(catalogDown)).toThrow(/catalog outage for 61 s, longer than the 60 s allowed: Cannot reach the REST catalog/);
  });

  it('rides out what is retryable and unknown commit outcomes; stops on refusals', () => {
    expect(OutageTracker.isOutage({ code: 'STORAGE', message: 'S3 timed out', retryable: true })).toBe(true);
    expect(OutageTracker.isOutage({ code: 'REST_NETWORK', message: '', retryable: true })).toBe(true);
    expect(OutageTracker.isOutage({ code: 'COMMIT_CONFLICT', message: '', retryable: true })).toBe(true);
    expect(OutageTracker.isOutage({ code: 'COMMIT_STATE_UNKNOWN', message: '', retryable: false })).toBe(true);
    expect(OutageTracker.isOutage({ code: 'REST_401', message: 'HTTP 401', retryable: false })).toBe(false);
    expect(OutageTracker.isOutage({ code: 'STORAGE', message: 'S3 403 AccessDenied', retryable: false })).toBe(false);
    expect(OutageTracker.isOutage({ code: 'SCHEMA_MISMATCH', message: '', retryable: false })).toBe(false);
  });
});
