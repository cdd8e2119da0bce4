/**
 * `thund serve` (the built CLI, with its JSON log) against a REST catalog that answers /v1/config
 * and then refuses every call, repeating the request — bearer token and all — in its error: the
 * JSON log and stderr name the failure and the status, and hold no form of the token.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { thundAsync } from '../e2e/cli.js';
import { startEchoServer } from '../e2e/echo-server.js';
import { EoKafka, unique } from './kafka-eo-support/eo-stack.js';

const kafka = new EoKafka();
const work = mkdtempSync(join(tmpdir(), 'thund-serve-secrets-'));

afterAll(async () => {
  await kafka.close();
  rmSync(work, { recursive: true, force: true });
});

it('the JSON log of a failed serve shows the catalog refusal without the bearer token', async () => {
  const catalog = await startEchoServer('iceberg-rest', 401, (request) =>
    request.url === '/v1/config' ? { status: 200, body: JSON.stringify({ defaults: {}, overrides: {} }) } : undefined,
  );
  try {
    const topic = unique('serve-secrets');
    await kafka.createTopic(topic, 1);
    const pipeline = join(work, 'pipeline.yaml');
    writeFileSync(pipeline, `catalog: { type: rest, uri: "${catalog.url}", auth: { type: bearer, token_env: THUND_IT_TOKEN } }\n`);
    const token = `token+${randomUUID()}/=&`;
    const serve = await thundAsync(
      ['serve', pipeline, '--kafka-brokers', kafka.brokers, '--topic', topic, '--group', unique('g'), '--table', 'lake.echoed', '--http-port', '0'],
      work,
      { THUND_IT_TOKEN: token },
    );
    expect(serve.status).toBe(1);
    const failed = serve.stdout.split('\n').find((line) => line.includes('"thund serve failed"'));
    expect(failed).toBeDefined();
    expect(failed).toContain('HTTP 401');
    expect(failed).toContain('authorization=Bearer ***');
    expect(catalog.requests.some((request) => request.headers['authorization'] === `Bearer ${token}`)).toBe(true);
    const output = serve.stdout + serve.stderr;
    for (const form of [token, encodeURIComponent(token), Buffer.from(token).toString('base64').replace(/=+$/, '')]) expect(output).not.toContain(form);
  } finally {
    await catalog.close();
  }
}, 120_000);
