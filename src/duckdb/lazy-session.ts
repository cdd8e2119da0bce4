/**
 * A DuckDB session opened on first use, for work that may finish without DuckDB (a run whose
 * flows are all up to date, `plan --state` over plain source paths).
 */
import { DuckDbSession, type DuckDbSettings } from './session.js';

export class LazySession {
  private opened: Promise<DuckDbSession> | undefined;

  constructor(private readonly settings: DuckDbSettings = {}) {}

  /** The session, opened by the first call. */
  readonly get = (): Promise<DuckDbSession> => (this.opened ??= DuckDbSession.open(this.settings));

  /** Closes the session if it was opened. */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened !== undefined) (await opened).close();
  }
}
