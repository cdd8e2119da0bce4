/**
 * The optional `serve:` block of the pipeline file that `thund serve` runs with: flag names with
 * "_" for "-" as keys, scalar values, `${NAME}` references substituted from the environment. Secrets
 * have no key here (the schema registry's credentials and URL are named by `*_env` keys), and a
 * key that looks like one is refused with the `*_env` key to use instead.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../errors.js';
import { substituteEnv, templateReferences, type Environment } from '../../pipeline/env-template.js';
import { isPipelineModule } from '../../pipeline/definition-file.js';
import { readSpecFile } from '../../pipeline/spec-file.js';
import { parseYaml } from '../../pipeline/yaml-locator.js';
import { fileKeyOf, SERVE_FLAGS, type ServeFileSettings, type ServeFlag } from './serve-config.js';

const FLAG_OF_KEY = new Map((Object.keys(SERVE_FLAGS) as ServeFlag[]).map((flag) => [fileKeyOf(flag), flag]));
const SECRET_KEYS: Readonly<Record<string, string>> = {
  schema_registry_url: 'schema_registry_url_env',
  schema_registry_username: 'schema_registry_username_env',
  schema_registry_password: 'schema_registry_password_env',
};
const Block = z.record(z.string(), z.union([z.string(), z.number(), z.bigint(), z.boolean()], { error: 'must be a text, number or boolean value' }));

/** A TypeScript / JavaScript pipeline module has no serve block: its settings are flags and environment variables. */
export async function loadServeFile(specPath: string, env: Environment): Promise<ServeFileSettings> {
  if (isPipelineModule(specPath)) return { path: specPath, values: {} };
  const yaml = parseYaml(await readSpecFile(specPath), specPath);
  const data = yaml.data() as unknown;
  const block = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>)['serve'] : undefined;
  if (block === undefined || block === null) return { path: specPath, values: {} };
  const parsed = Block.safeParse(block);
  if (typeof block !== 'object' || Array.isArray(block) || !parsed.success) {
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'serve' : `serve.${issue.path.join('.')}`;
    throw new InvalidInputError(`${specPath}: ${where} ${issue?.message ?? 'must be a mapping of settings'}`, { context: { file: specPath } });
  }
  const values: Partial<Record<ServeFlag, string>> = {};
  for (const [key, value] of Object.entries(parsed.data)) {
    const flag = FLAG_OF_KEY.get(key);
    if (flag === undefined) {
      const hint = SECRET_KEYS[key] === undefined ? `known keys: ${[...FLAG_OF_KEY.keys()].join(', ')}` : `secrets and the registry URL are not written in the file; name the environment variable that holds it with ${SECRET_KEYS[key]}`;
      throw new InvalidInputError(`${specPath}: serve.${key} is not a serve setting (${hint})`, { context: { file: specPath, field: `serve.${key}` } });
    }
    values[flag] = substitute(specPath, key, String(value), env);
  }
  return { path: specPath, values };
}

function substitute(specPath: string, key: string, template: string, env: Environment): string {
  const references = templateReferences(template);
  if ('problem' in references) throw new InvalidInputError(`${specPath}: serve.${key} has ${references.problem}`, { context: { file: specPath, field: `serve.${key}` } });
  const result = substituteEnv(template, env);
  if ('missing' in result) {
    throw new InvalidInputError(`${specPath}: serve.${key} references \${${result.missing}}, which is not set`, { context: { file: specPath, field: `serve.${key}`, variable: result.missing } });
  }
  return result.value;
}
