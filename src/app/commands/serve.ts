/**
 * `thund serve <pipeline.yaml> [flags]`: parses its own flags (see serve-config.ts), logs JSON
 * lines, and turns the first SIGTERM or SIGINT into a graceful stop (a second one exits at once).
 */
import { parseArgs } from 'node:util';
import { InvalidInputError } from '../../errors.js';
import { DuckDbSession } from '../../duckdb/session.js';
import { duckDbSqlParser } from '../../duckdb/sql-parser.js';
import { ONE_QUERY, parseOneQuery } from '../../pipeline/one-query.js';
import { JsonLogger, type Logger } from '../serve/json-logger.js';
import { formatProblem } from '../../pipeline/problems.js';
import { pipelineServeSettings, SERVE_FLAGS, serveSettings, type ServeFlag } from '../serve/serve-config.js';
import { servePipeline } from '../serve/pipeline-serve.js';
import { analysePipelineFile } from './validate.js';
import { loadServeFile } from '../serve/serve-file.js';
import { serveOneTopic } from '../serve/serve-one-topic.js';
import { SERVE_USAGE } from './usage.js';

/** Before connecting anywhere: `--sql` runs as a subquery on every batch, so it must be one query. */
async function refuseUnlessOneQuery(sql: string): Promise<void> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const parsed = await parseOneQuery(duckDbSqlParser(session), sql);
    if ('problem' in parsed) throw new InvalidInputError(`thund serve: the flow SQL (--sql) ${parsed.problem}; it must be ${ONE_QUERY} over kafka_records`);
  } finally {
    session.close();
  }
}

export async function serveCommand(argv: readonly string[]): Promise<void> {
  const flagOptions = Object.fromEntries(Object.keys(SERVE_FLAGS).map((flag) => [flag, { type: 'string' as const }]));
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { ...flagOptions, warehouse: { type: 'string' }, 'catalog-name': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) {
    process.stdout.write(`Usage:\n${SERVE_USAGE}\n`);
    return;
  }
  const [pipelinePath, ...rest] = positionals;
  if (pipelinePath === undefined) throw new InvalidInputError(`thund serve needs a pipeline file whose catalog and storage blocks say where tables live:\n${SERVE_USAGE}`);
  if (rest.length > 0) throw new InvalidInputError(`thund serve: unexpected arguments: ${rest.join(' ')}`);
  const flags: Partial<Record<ServeFlag, string>> = {};
  for (const flag of Object.keys(SERVE_FLAGS) as ServeFlag[]) {
    const value = (values as Record<string, string | boolean | undefined>)[flag];
    if (typeof value === 'string') flags[flag] = value;
  }
  const file = await loadServeFile(pipelinePath, process.env);
  const warehouse = values.warehouse;
  const catalogName = values['catalog-name'];
  const overrides = {
    ...(typeof warehouse === 'string' ? { warehouse } : {}),
    ...(typeof catalogName === 'string' ? { catalogName } : {}),
  };
  const given = (flag: ServeFlag): string | undefined => [flags[flag], process.env[SERVE_FLAGS[flag]], file.values[flag]].find((v) => v !== undefined && v !== '');
  if (given('topic') === undefined && given('table') === undefined) {
    const analysed = await analysePipelineFile(pipelinePath);
    if (analysed.problems.length > 0 || analysed.graph === undefined || analysed.definition === undefined) {
      throw new InvalidInputError(analysed.problems.map(formatProblem).join('\n'), { context: { file: pipelinePath } });
    }
    if (analysed.graph.flows.length === 0) {
      throw new InvalidInputError(`thund serve: ${pipelinePath} has no flows; define the pipeline's tables and flows, or serve one topic into one table with --topic and --table:\n${SERVE_USAGE}`);
    }
    const settings = pipelineServeSettings(flags, process.env, file);
    const logger = new JsonLogger();
    const stopSignal = stopSignalOnce(settings.shutdownGraceMs, logger);
    await servePipeline({ connection: analysed.definition, graph: analysed.graph, overrides, ...settings, logger, stopSignal });
    return;
  }
  const settings = serveSettings(flags, process.env, file);
  if (settings.sql !== undefined) await refuseUnlessOneQuery(settings.sql);
  const logger = new JsonLogger();
  await serveOneTopic({ pipelinePath, settings, overrides, logger, stopSignal: stopSignalOnce(settings.shutdownGraceMs, logger) });
}

/**
 * Resolves with the first SIGTERM or SIGINT, when serve finishes the batch in progress and stops;
 * a batch that has not finished `graceMs` later is left behind: the process exits 0 (a supervisor
 * that waited longer would SIGKILL it anyway). Nothing is lost: the positions the next start reads
 * are the table's, whether or not that batch's commit was already under way. A second signal
 * exits at once.
 */
function stopSignalOnce(graceMs: number, logger: Logger): Promise<string> {
  let signals = 0;
  const stopSignal = new Promise<string>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      signals += 1;
      if (signals > 1) process.exit(130);
      setTimeout(() => {
        logger.log('warn', 'stopped without finishing the batch in progress: it took longer than the shutdown grace time', {
          signal,
          graceMs,
          resume: 'the next start reads from the positions committed in the tables; nothing is lost or landed twice',
        });
        // A DuckDB query still running would hold the exit until it ends.
        DuckDbSession.interruptAll();
        process.exit(0);
      }, graceMs).unref();
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  return stopSignal;
}
