/**
 * A module.register() hooks file that appends the URL of every module a process imports to the
 * file named by THUND_TEST_LOADED: how tests find out what an import or a command loaded.
 */
export const IMPORT_RECORDING_HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.THUND_TEST_LOADED, resolved.url + '\\n');
  return resolved;
}
`;
