/**
 * serve's readiness is known before anyone asks: a catalog probe that never answers makes the
 * service not ready (reason `catalog`) after its timeout, while /readyz, /metrics and /status keep
 * answering at once; a failed trigger names the dependency that failed it until a trigger completes;
 * a probe without an answer is told at once (serve starts the outage then).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../../src/app/serve/http-server.js';
import { failedDependency, Readiness } from '../../../src/app/serve/readiness.js';

describe('Readiness', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('is ready once the catalog answered and a trigger completed; a failed trigger names its dependency', async () => {
    const readiness = new Readiness({ probeCatalog: () => Promise.resolve(false) });
    expect(readiness.state()).toMatchObject({ ready: false, reasons: ['catalog', 'assigning'] });
    await readiness.probe();
    expect(readiness.state()).toMatchObject({ ready: false, reasons: ['assigning'] });
    readiness.triggerCompleted();
    expect(readiness.state()).toEqual({ ready: true, checks: { catalog: true, catalogProbed: true, firstTrigger: true, lastTrigger: true }, reasons: [] });
    readiness.triggerFailed({ code: 'STORAGE', message: 'S3 PutObject timed out', retryable: true });
    expect(readiness.state()).toMatchObject({ ready: false, reasons: ['storage'] });
    readiness.triggerCompleted();
    expect(readiness.state().ready).toBe(true);
  });

  it('names kafka while its brokers do not answer in time, and is ready again once they do', async () => {
    let brokersAnswer = false;
    const unanswered: string[] = [];
    const readiness = new Readiness({
      probeCatalog: () => Promise.resolve(true),
      probeKafka: () => (brokersAnswer ? Promise.resolve() : new Promise(() => undefined)),
      timeoutMs: 50,
      onProbeFailed: (dependency) => unanswered.push(dependency),
    });
    readiness.triggerCompleted();
    await readiness.probe();
    expect(readiness.state()).toMatchObject({ ready: false, reasons: ['kafka'], checks: { catalog: true, kafka: false } });
    expect(unanswered).toEqual(['kafka']);
    brokersAnswer = true;
    await readiness.probe();
    expect(readiness.state()).toMatchObject({ ready: true, reasons: [], checks: { kafka: true } });
    expect(unanswered).toEqual(['kafka']);
  });

  it('maps a failed trigger to the dependency its code names', () => {
    const of = (code: string) => failedDependency({ code, message: '', retryable: true });
    expect([of('STORAGE'), of('KAFKA_SOURCE'), of('REST_NETWORK'), of('REST_503'), of('GLUE'), of('COMMIT_STATE_UNKNOWN'), of('FLOW')]).toEqual([
      'storage',
      'kafka',
      'catalog',
      'catalog',
      'catalog',
      'catalog',
      'failing',
    ]);
  });

  it('a catalog that never answers: not ready after the probe timeout, and the probes answer at once meanwhile', async () => {
    const readiness = new Readiness({ probeCatalog: () => new Promise(() => undefined), timeoutMs: 200, intervalMs: 50 });
    readiness.triggerCompleted();
    readiness.start();
    const http = await startHttpServer('127.0.0.1', 0, {
      ready: () => readiness.state(),
      metrics: () => `thund_ready ${readiness.state().ready ? 1 : 0}\n`,
      status: () => ({ ...readiness.state() }) as never,
    });
    close = async () => {
      readiness.stop();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
    };
    for (const path of ['/readyz', '/metrics', '/status', '/healthz']) {
      const started = performance.now();
      const answer = await fetch(`http://127.0.0.1:${http.port}${path}`, { signal: AbortSignal.timeout(1_000) });
      expect(performance.now() - started, path).toBeLessThan(500);
      expect(answer.status, path).toBe(path === '/readyz' ? 503 : 200);
      await answer.text();
    }
    const body = (await (await fetch(`http://127.0.0.1:${http.port}/readyz`)).json()) as { ready: boolean; reasons: string[] };
    expect(body).toMatchObject({ ready: false, reasons: ['catalog'] });
  });
});
