/**
 * Names and modes shared by the pipeline definition's wire schema (definition-schema.ts), and the
 * translation of zod's issues into problems that name a field (positions are added by the YAML
 * locator).
 */
import { z } from 'zod';
import type { FieldPath, SpecProblem } from './yaml-locator.js';
import { KEY_SEPARATOR } from './strict-object.js';

/** Names that become SQL identifiers (DuckDB views) must not need quoting. */
export const SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const PIPELINE_NAME = /^[A-Za-z0-9_-]+$/;
/**
 * Namespace and table names become folder names (`<warehouse>/<namespace>/<table>`, Glue's
 * `<namespace>.db`), flow names checkpoint folders; file systems allow 255 bytes a folder name.
 * Names are ASCII, so characters are bytes; the margin leaves room for Thund's suffixes.
 */
export const MAX_NAME_LENGTH = 200;

/** Why a name part is too long, or undefined when it fits. */
export function nameLengthProblem(part: string): string | undefined {
  if (part.length <= MAX_NAME_LENGTH) return undefined;
  return `"${part.slice(0, 24)}…" is too long: ${part.length} characters, at most ${MAX_NAME_LENGTH} (it becomes a folder name)`;
}
/** `namespace.table`, namespace possibly multi-level (`a.b.t`), each part an identifier. */
export const TABLE_KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

export const WRITE_MODES = ['append', 'overwrite'] as const;
/** What `thund run` does with a flow's rows: the write modes, or `upsert` by the table's `keys`. */
export const TABLE_MODES = [...WRITE_MODES, 'upsert'] as const;
export type WriteMode = (typeof TABLE_MODES)[number];

/** zod's issues as spec problems: a missing field is reported at its parent. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[]): SpecProblem[] {
  return issues.flatMap((issue): SpecProblem[] => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    if (issue.code === 'unrecognized_keys') {
      const messages = issue.message.split(KEY_SEPARATOR);
      return issue.keys.map((key, i) => ({
        path: [...path, key],
        message: messages[i] ?? `unknown field "${key}"`,
        target: 'key' as const,
      }));
    }
    if ('input' in issue && issue.input === undefined && path.length > 0) {
      return [{ path: path.slice(0, -1), message: `missing required field "${String(path.at(-1))}"`, target: 'key' }];
    }
    return [{ path, message: withInput(issue.message, issue.input, path) }];
  });
}

/** `*_env` fields name a variable; a user may have pasted the secret itself there instead. */
const NAMES_A_SECRET = /_env$/;

function withInput(message: string, input: unknown, path: FieldPath): string {
  if (input === undefined || typeof input === 'object') return message;
  const field = path.at(-1);
  if (typeof field === 'string' && NAMES_A_SECRET.test(field)) return message;
  const shown = typeof input === 'string' ? JSON.stringify(input) : String(input);
  return path.length === 0 ? message : `${message}, got ${shown}`;
}
