/**
 * withSetting runs work under a DuckDB setting and puts back the value it had; when the setting
 * has that value already it sets nothing (setting threads relaunches DuckDB's thread pool).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { withSetting } from '../../../src/duckdb/with-setting.js';

let session: DuckDbSession;
const statements: string[] = [];

beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 2 });
  const run = session.run.bind(session);
  session.run = (sql: string) => {
    statements.push(sql);
    return run(sql);
  };
});

afterAll(() => session.close());

const threads = async (): Promise<string> => String((await session.queryJson(`SELECT current_setting('threads')::VARCHAR AS value`))[0]?.['value']);

it('sets the value for the work and puts the one before back, after a failure too', async () => {
  statements.length = 0;
  expect(await withSetting(session, 'threads', 1, threads)).toBe('1');
  expect(await threads()).toBe('2');
  await expect(withSetting(session, 'threads', 1, () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
  expect(await threads()).toBe('2');
  expect(statements).toEqual(['SET threads = 1', "SET threads = '2'", 'SET threads = 1', "SET threads = '2'"]);
});

it('sets nothing when the setting has the value already', async () => {
  await session.run('SET threads = 1');
  statements.length = 0;
  expect(await withSetting(session, 'threads', 1, threads)).toBe('1');
  expect(await threads()).toBe('1');
  expect(statements).toEqual([]);
  await session.run('SET threads = 2');
});
