/**
 * Where Thund keeps what it can recompute (e.g. DuckDB's parse of SQL texts): $THUND_CACHE, else
 * $XDG_CACHE_HOME/thund, else ~/.cache/thund.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export function userCacheDir(...parts: string[]): string {
  const root = process.env['THUND_CACHE'] ?? path.join(process.env['XDG_CACHE_HOME'] ?? path.join(homedir(), '.cache'), 'thund');
  return path.join(root, ...parts);
}
