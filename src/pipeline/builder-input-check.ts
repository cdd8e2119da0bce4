/**
 * Checks one builder input against its zod schema and refuses a bad one where it was declared:
 * `streaming table "lake.t": applyChanges.changeFormat: expected { kind: 'rows' | 'row-kind' | 'debezium' } (got "debezium")`.
 */
import type { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { builderInputSchemas, UNKNOWN_KEY_SEPARATOR, type BuilderInputSchemas } from './builder-input-schema.js';
import { formatFieldPath, type FieldPath } from './field-path.js';
import { closestMatch } from './suggest.js';

/**
 * Throws unless `schemas[input]` accepts `value`, naming `where` (the element) and the field;
 * `at` is the field path of `value` itself (`['name']` for an element's name).
 */
export function checkBuilderInput(input: keyof BuilderInputSchemas, value: unknown, where: string, at: FieldPath = []): void {
  const result = builderInputSchemas()[input].safeParse(value);
  if (result.success) return;
  const refusals = withoutMisspeltFields(result.error.issues.flatMap((issue) => refusalsOf(issue, value, [])));
  const shown = refusals.map(({ path, message }) => {
    const field = formatFieldPath([...at, ...path]);
    return { field, text: field === '' ? message : `${field}: ${message}` };
  });
  throw new InvalidInputError(`${where}: ${shown.map(({ text }) => text).join('; ')}`, { context: { field: shown[0]?.field ?? '' } });
}

interface Refusal {
  readonly path: FieldPath;
  readonly message: string;
  /** The field named by an unknown-field refusal, or absent. */
  readonly unknownKey?: string;
  readonly missing: boolean;
}

/** `base`: the path of the union whose branch `issue` belongs to (zod's branch paths start there). */
function refusalsOf(issue: z.core.$ZodIssue, value: unknown, base: FieldPath): Refusal[] {
  const path = [...base, ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))];
  if (issue.code === 'unrecognized_keys') {
    const messages = issue.message.split(UNKNOWN_KEY_SEPARATOR);
    return issue.keys.map((key, index) => ({ path: [...path, key], message: messages[index] ?? 'unknown field', unknownKey: key, missing: false }));
  }
  if (issue.code === 'invalid_union') {
    // A value of the right kind for exactly one branch (an object where `string | { … }` is
    // expected) is refused for what is wrong inside it, not as "neither".
    const reached = issue.errors.filter((branch) => branch.every((inner) => inner.path.length > 0 || inner.code === 'unrecognized_keys'));
    const [branch] = reached;
    if (branch !== undefined && reached.length === 1) return branch.flatMap((inner) => refusalsOf(inner, value, path));
  }
  const got = valueAt(value, path);
  return [{ path, message: `expected ${issue.message} (got ${describe(got)})`, missing: got === undefined }];
}

/**
 * A required field reported missing beside an unknown field that is its misspelling
 * (`sequence_by` for `sequenceBy`): the unknown field's "did you mean" says it all.
 */
function withoutMisspeltFields(refusals: readonly Refusal[]): Refusal[] {
  const parent = (path: FieldPath): string => JSON.stringify(path.slice(0, -1));
  const misspelt = new Set(
    refusals.flatMap(({ path, unknownKey }) => {
      if (unknownKey === undefined) return [];
      const missingSiblings = refusals.filter((other) => other.missing && other.path.length === path.length && parent(other.path) === parent(path));
      const meant = closestMatch(unknownKey, missingSiblings.map((other) => String(other.path.at(-1))));
      return meant === undefined ? [] : [JSON.stringify([...path.slice(0, -1), meant])];
    }),
  );
  return refusals.filter(({ path, missing }) => !(missing && misspelt.has(JSON.stringify(path))));
}

function valueAt(value: unknown, path: FieldPath): unknown {
  return path.reduce<unknown>((current, key) => (typeof current === 'object' && current !== null ? (current as Record<string | number, unknown>)[key] : undefined), value);
}

const LONGEST = 60;

/** The offending value as a message shows it: JSON where it has one, shortened. */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return String(value);
  let text: string;
  try {
    text = JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? `${inner}n` : inner)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > LONGEST ? `${text.slice(0, LONGEST - 1)}…` : text;
}
