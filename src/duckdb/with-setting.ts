/** Runs work under a DuckDB setting and puts the setting back as it was. */
import { quoteLiteral, type DuckDbSession } from './session.js';

/**
 * Runs `body` with DuckDB setting `name` set to `value`, restoring the value it had afterwards
 * (RESET when it had none that reads back); nothing is set when it has that value already. The
 * setting is the instance's: queries of other flows on the same session that run meanwhile see it too.
 */
export async function withSetting<T>(session: DuckDbSession, name: string, value: string | number, body: () => Promise<T>): Promise<T> {
  const [current] = await session.queryJson(`SELECT current_setting(${quoteLiteral(name)})::VARCHAR AS value`);
  const previous = current?.['value'];
  // Setting threads relaunches DuckDB's thread pool even to the count it has (a few ms a batch).
  if (previous === String(value)) return body();
  await session.run(`SET ${name} = ${typeof value === 'number' ? value : quoteLiteral(value)}`);
  try {
    return await body();
  } finally {
    if (typeof previous === 'string' && previous !== '') await session.run(`SET ${name} = ${quoteLiteral(previous)}`);
    else await session.run(`RESET ${name}`);
  }
}
