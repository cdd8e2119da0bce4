/**
 * `${NAME}` references to environment variables inside non-secret connection values (uri,
 * endpoint, warehouse, …), so one spec serves several stacks. Secrets never go through here:
 * they are named by `*_env` fields and read whole. Names are upper case (letters, digits, `_`);
 * there is no default syntax and no escaping, a `$` not followed by `{` is literal.
 */

/** What an environment variable name must look like, in `*_env` fields and in `${…}`. */
export const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

const REFERENCE = /\$\{([^}]*)\}/g;

export type Environment = Readonly<Record<string, string | undefined>>;

/** The variables a template references, in order, or what is malformed about it. */
export function templateReferences(template: string): { readonly names: string[] } | { readonly problem: string } {
  const names: string[] = [];
  for (const match of template.matchAll(REFERENCE)) {
    const name = match[1] ?? '';
    if (!ENV_NAME.test(name)) {
      return { problem: `"\${${name}}" is not a valid reference: write \${NAME} with an upper-case environment variable name` };
    }
    names.push(name);
  }
  const rest = template.replace(REFERENCE, '');
  if (rest.includes('${')) return { problem: 'an unterminated "${": write ${NAME}' };
  return { names };
}

export type Substitution = { readonly value: string } | { readonly missing: string };

/** The template with every `${NAME}` replaced, or the first variable that is unset. */
export function substituteEnv(template: string, env: Environment): Substitution {
  let missing: string | undefined;
  const value = template.replace(REFERENCE, (_, name: string) => {
    const found = env[name];
    if (found === undefined) missing ??= name;
    return found ?? '';
  });
  return missing === undefined ? { value } : { missing };
}
