/** serve's JSON log lines hold no registered secret, even in a field that repeats a server's answer. */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { JsonLogger } from '../../../src/app/serve/json-logger.js';
import { registerSecret } from '../../../src/secrets.js';

it('scrubs registered secrets from the message and every field, JSON-escaped ones included', () => {
  const password = `pw-${randomUUID()}"\\`;
  registerSecret(password);
  const lines: string[] = [];
  const logger = new JsonLogger((line) => lines.push(line));
  const failure = new Error(`registry answered 401: bad credentials ${password}`);
  logger.log('error', `thund serve failed (${password})`, { error: failure.message, nested: { header: `Basic ${password}` }, offset: 12n });
  expect(lines).toHaveLength(1);
  const entry = JSON.parse(lines[0] as string) as Record<string, unknown>;
  expect(entry).toMatchObject({ level: 'error', msg: 'thund serve failed (***)', error: 'registry answered 401: bad credentials ***', nested: { header: 'Basic ***' }, offset: '12' });
  expect(lines[0]).not.toContain(password.slice(0, 10));
});
