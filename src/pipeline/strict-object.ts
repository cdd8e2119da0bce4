/** zod strict objects whose unknown-key errors help: what is allowed, and a likely fix. */
import { z } from 'zod';
import { didYouMean } from './suggest.js';

/** Joins one message per unknown key; issuesToProblems splits them so each points at its key. */
export const KEY_SEPARATOR = '\u0000';

/**
 * A strict object whose unknown-key error lists what is allowed and suggests a fix; `hints`
 * replaces that message for keys that deserve a specific answer (a secret written inline, a
 * field of another catalog type).
 */
export function strictObject<Shape extends z.ZodRawShape>(shape: Shape, what: string, hints: Readonly<Record<string, string>> = {}) {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        // One message per key, split again by issuesToProblems so each points at its own key.
        return issue.keys
          .map(
            (key) =>
              (Object.hasOwn(hints, key) ? hints[key] : undefined) ??
              `unknown field "${key}" in ${what}${didYouMean(key, allowed)}; allowed: ${allowed.join(', ')}`,
          )
          .join(KEY_SEPARATOR);
      }
      return undefined;
    },
  });
}
