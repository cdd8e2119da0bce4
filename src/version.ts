import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two folders up from src/ and dist/src/). */
function readVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'thund' && typeof parsed.version === 'string') return parsed.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
}

export const THUND_VERSION = readVersion();
