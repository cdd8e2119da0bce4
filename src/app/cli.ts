#!/usr/bin/env node
/**
 * The `thund` command line. Errors print one clear line (code, message, where) and exit
 * non-zero; THUND_DEBUG=1 adds the stack. Everything written to stdout and stderr is scrubbed of
 * the secrets the process holds (secrets.ts). Each command's module is imported only when that
 * command runs, so `thund --help` loads none of them (nor DuckDB, the AWS SDK or kafkajs).
 */
import { parseArgs } from 'node:util';
import { ThundError } from '../errors.js';
import { scrubSecrets } from '../secrets.js';
import { MAINTAIN_USAGE, RUN_BACKENDS, SERVE_USAGE, type RunBackend } from './commands/usage.js';
import { THUND_VERSION } from '../version.js';

const USAGE = `thund ${THUND_VERSION} — lands data in Apache Iceberg tables

Usage:
  thund run <pipeline.yaml> [--full-refresh] [--warehouse DIR] [--catalog-name NAME] [--backend native|spark [--spark-version 4.1]]
  thund validate <pipeline.yaml>
${SERVE_USAGE}
  thund plan <pipeline.yaml> [--format text|mermaid|dot] [--state [--warehouse DIR] [--catalog-name NAME]]
  thund lower <pipeline.yaml> --target sdp --out DIR [--check] [--report-json FILE] [--spark-version 4.1]
  thund inspect <namespace.table> [--warehouse DIR] [--catalog-name NAME] [--json]
  thund inspect [<namespace.table>] --pipeline <pipeline.yaml> [--json]
  thund add-files <namespace.table> <paths | s3://bucket/prefix/ | glob>… [--warehouse DIR] [--catalog-name NAME] [--pipeline FILE] [--dry-run] [--json]
${MAINTAIN_USAGE}

A pipeline file is a YAML spec, or a TypeScript / JavaScript module (.ts .mts .cts .js .mjs
.cjs) whose default export is a built graph (export default pipeline('name')….build()).

The pipeline's catalog block says where tables live (embedded SQLite, REST or Glue); without
one, the embedded catalog <warehouse>/catalog.db. inspect --pipeline uses that pipeline's
catalog and storage blocks (and its table when none is named).
add-files registers existing Parquet files in a table without rewriting them (one append commit;
a file that does not fit the schema, spans partitions or is already in the table refuses all).
--warehouse and --catalog-name override the catalog block's warehouse and name.

thund maintain runs the named maintenance actions on each table (all of them, in the order
compact, rewrite-position-deletes, rewrite-manifests, expire-snapshots, remove-orphans, when
none is named); --dry-run says what each would change and changes nothing.

thund run recomputes only what is stale (a materialized view whose definition or inputs changed
since its last run); --full-refresh runs every flow. plan --state shows what is stale and why.
--backend spark runs the lowered pipeline with spark-pipelines (THUND_SPARK_PIPELINES_PYTHON,
THUND_SPARK_PIPELINES_JARS, THUND_SPARK_REMOTE=sc://host:port); what only Thund runs is refused.

Defaults: --warehouse ./warehouse, --catalog-name default (embedded catalog)`;

function runBackend(written: string | undefined): RunBackend {
  if (written === undefined) return 'native';
  const backend = RUN_BACKENDS.find((name) => name === written);
  if (backend === undefined) throw new UsageError(`--backend must be one of: ${RUN_BACKENDS.join(', ')} (got "${written}")`);
  return backend;
}

class UsageError extends ThundError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

// The pinned AWS SDK works on Node 20 (our engines floor); its notice that later SDK releases will
// need Node 22 is addressed to us, not to someone running a pipeline, so it stays off unless asked for.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

/** Resolves to the exit code (validate and plan exit 1 for an invalid pipeline). */
async function main(argv: readonly string[]): Promise<number | void> {
  // serve takes its own flags (serve-config.ts).
  if (argv[0] === 'serve') return (await import('./commands/serve.js')).serveCommand(argv.slice(1));
  if (argv[0] === 'maintain') return (await import('./commands/maintain.js')).maintainCommand(argv.slice(1), (line) => void process.stdout.write(`${scrubSecrets(line)}\n`));
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      warehouse: { type: 'string' },
      'catalog-name': { type: 'string' },
      pipeline: { type: 'string' },
      json: { type: 'boolean' },
      format: { type: 'string' },
      target: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean' },
      'report-json': { type: 'string' },
      'spark-version': { type: 'string' },
      'full-refresh': { type: 'boolean' },
      backend: { type: 'string' },
      state: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
  const print = (line: string): void => void process.stdout.write(`${scrubSecrets(line)}\n`);
  if (values.version === true) return print(THUND_VERSION);
  const [command, target, ...rest] = positionals;
  if (values.help === true || command === undefined) return print(USAGE);
  if (rest.length > 0 && command !== 'add-files') throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const options = {
    ...(values.warehouse === undefined ? {} : { warehouse: values.warehouse }),
    ...(values['catalog-name'] === undefined ? {} : { catalogName: values['catalog-name'] }),
  };
  switch (command) {
    case 'run': {
      if (target === undefined) throw new UsageError('thund run needs a pipeline file: thund run <pipeline.yaml>');
      if (values.pipeline !== undefined) throw new UsageError('thund run takes the pipeline file as its argument, not --pipeline');
      const backend = runBackend(values.backend);
      return (await import('./commands/run.js')).runCommand(
        target,
        {
          ...options,
          fullRefresh: values['full-refresh'] === true,
          backend,
          ...(values['spark-version'] === undefined ? {} : { sparkVersion: values['spark-version'] }),
        },
        print,
        printError,
      );
    }
    case 'inspect':
      if (target === undefined && values.pipeline === undefined) {
        throw new UsageError('thund inspect needs a table: thund inspect <namespace.table> [--pipeline <pipeline.yaml>]');
      }
      return (await import('./commands/inspect.js')).inspectCommand(
        target,
        { ...options, json: values.json === true, ...(values.pipeline === undefined ? {} : { pipeline: values.pipeline }) },
        print,
      );
    case 'add-files':
      if (target === undefined || rest.length === 0) {
        throw new UsageError('thund add-files needs a table and files: thund add-files <namespace.table> <paths | s3://bucket/prefix/ | glob>…');
      }
      return (await import('./commands/add-files.js')).addFilesCommand(
        target,
        rest,
        {
          ...options,
          json: values.json === true,
          dryRun: values['dry-run'] === true,
          ...(values.pipeline === undefined ? {} : { pipeline: values.pipeline }),
        },
        print,
      );
    case 'validate':
      if (target === undefined) throw new UsageError('thund validate needs a pipeline file: thund validate <pipeline.yaml>');
      return (await import('./commands/validate.js')).validateCommand(target, print);
    case 'plan': {
      if (target === undefined) throw new UsageError('thund plan needs a pipeline file: thund plan <pipeline.yaml> [--format text|mermaid|dot]');
      const { parsePlanFormat, planCommand } = await import('./commands/plan.js');
      return planCommand(target, parsePlanFormat(values.format), print, { ...options, state: values.state === true });
    }
    case 'lower':
      if (target === undefined) throw new UsageError('thund lower needs a pipeline file: thund lower <pipeline.yaml> --target sdp --out DIR');
      return (await import('./commands/lower.js')).lowerCommand(
        target,
        {
          ...options,
          check: values.check === true,
          ...(values.target === undefined ? {} : { target: values.target }),
          ...(values.out === undefined ? {} : { out: values.out }),
          ...(values['report-json'] === undefined ? {} : { reportJson: values['report-json'] }),
          ...(values['spark-version'] === undefined ? {} : { sparkVersion: values['spark-version'] }),
        },
        print,
      );
    default:
      throw new UsageError(`unknown command "${command}" (commands: run, serve, validate, plan, inspect, add-files, maintain, lower)`);
  }
}

function printError(text: string): void {
  process.stderr.write(`${scrubSecrets(text)}\n`);
}

/** Thund's own words are left alone (a weak key such as `thund` would otherwise mask them); messages are scrubbed. */
function report(error: unknown): number {
  const debug = process.env['THUND_DEBUG'] === '1';
  if (error instanceof ThundError) {
    process.stderr.write(`thund: error [${error.code}]: ${scrubSecrets(error.message)}\n`);
    if (debug && error.stack !== undefined) printError(error.stack);
    return error instanceof UsageError ? 2 : 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  const usage = error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`thund: ${usage ? '' : 'internal error: '}${scrubSecrets(message)}\n`);
  if (!usage) process.stderr.write(debug && error instanceof Error ? `${scrubSecrets(error.stack ?? '')}\n` : 'thund: run with THUND_DEBUG=1 for details\n');
  return usage ? 2 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (error: unknown) => process.exit(report(error)),
);
