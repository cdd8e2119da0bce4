/** A field's path inside a spec or a builder input, and how messages write it (no YAML or zod here). */

export type FieldPath = readonly (string | number)[];

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `flows.load_orders.target`, `tables["lake.orders"].mode`, `sources.orders.path[1]`. */
export function formatFieldPath(path: FieldPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (SIMPLE_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}
