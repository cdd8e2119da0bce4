#!/usr/bin/env node
/**
 * The `thund` command line. Errors print one clear line (code, message, where) and exit
 * non-zero; THUND_DEBUG=1 adds the stack.
 */
import { parseArgs } from 'node:util';
import { ThundError } from '../errors.js';
import { inspectCommand } from './commands/inspect.js';
import { runCommand } from './commands/run.js';
import { THUND_VERSION } from '../version.js';

const USAGE = `thund ${THUND_VERSION} — lands data in Apache Iceberg tables

Usage:
  thund run <pipeline.yaml> [--warehouse DIR] [--catalog-name NAME]
  thund inspect <namespace.table> [--warehouse DIR] [--catalog-name NAME] [--json]

Defaults: --warehouse ./warehouse (the embedded SQLite catalog is <warehouse>/catalog.db),
          --catalog-name default`;

class UsageError extends ThundError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      warehouse: { type: 'string' },
      'catalog-name': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  if (values.version === true) return print(THUND_VERSION);
  const [command, target, ...rest] = positionals;
  if (values.help === true || command === undefined) return print(USAGE);
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const options = {
    ...(values.warehouse === undefined ? {} : { warehouse: values.warehouse }),
    ...(values['catalog-name'] === undefined ? {} : { catalogName: values['catalog-name'] }),
  };
  switch (command) {
    case 'run':
      if (target === undefined) throw new UsageError('thund run needs a pipeline file: thund run <pipeline.yaml>');
      return runCommand(target, options, print);
    case 'inspect':
      if (target === undefined) throw new UsageError('thund inspect needs a table: thund inspect <namespace.table>');
      return inspectCommand(target, { ...options, json: values.json === true }, print);
    default:
      throw new UsageError(`unknown command "${command}" (commands: run, inspect)`);
  }
}

function report(error: unknown): number {
  const debug = process.env['THUND_DEBUG'] === '1';
  if (error instanceof ThundError) {
    process.stderr.write(`thund: error [${error.code}]: ${error.message}\n`);
    if (debug && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  const usage = error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`thund: ${usage ? '' : 'internal error: '}${message}\n`);
  if (!usage) {
    process.stderr.write(debug && error instanceof Error ? `${error.stack ?? ''}\n` : 'thund: run with THUND_DEBUG=1 for details\n');
  }
  return usage ? 2 : 1;
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => process.exit(report(error)),
);
