/**
 * `thund serve --topic T --table ns.t [--sql …]` is shorthand for a pipeline of one flow: the
 * topic as a Kafka source named by --view (default kafka_records; consumer group --group, the
 * processes of one group share its partitions), and the table as a streaming table whose flow is
 * --sql with every read of the view made a STREAM() read (default: every column but the
 * headers). The pipeline file gives its catalog and storage blocks; the flags give the rest. The
 * result runs through the same runtime as any pipeline (`thund serve pipeline.yaml`), positions
 * in the table's snapshot summaries.
 */
import { parse, stringify } from 'yaml';
import { InvalidInputError } from '../../errors.js';
import { AUTO_EVOLVE_PROPERTY } from '../../engine/run-flow.js';
import { MAX_ROWS_PER_BATCH_PROPERTY } from '../../engine/graph/streaming/parquet-stream.js';
import { codeIndex } from '../../pipeline/sql-lexical.js';
import { formatProblem } from '../../pipeline/problems.js';
import { readSpecFile } from '../../pipeline/spec-file.js';
import { analysePipelineText, type AnalysedPipeline } from '../commands/validate.js';
import type { CatalogOverrides } from '../open-catalog.js';
import type { Logger } from './json-logger.js';
import { servePipeline } from './pipeline-serve.js';
import type { ServeSettings } from './serve-config.js';

export interface OneTopicServeRequest {
  readonly pipelinePath: string;
  readonly settings: ServeSettings;
  readonly overrides: CatalogOverrides;
  readonly logger: Logger;
  /** Resolves when the service should stop (signals, in the CLI). */
  readonly stopSignal: Promise<string>;
  /** Where the schema registry's URL and credentials are read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Serves the one-flow pipeline the flags stand for, every --commit-interval-ms, until the stop signal. */
export async function serveOneTopic(request: OneTopicServeRequest): Promise<void> {
  const { settings } = request;
  const { definition, graph } = await oneTopicPipeline(request.pipelinePath, settings);
  await servePipeline({
    connection: definition,
    graph,
    overrides: request.overrides,
    httpHost: settings.httpHost,
    httpPort: settings.httpPort,
    triggerIntervalMs: settings.commitIntervalMs,
    ...(settings.outageGiveUpMs === undefined ? {} : { outageGiveUpMs: settings.outageGiveUpMs }),
    logger: request.logger,
    stopSignal: request.stopSignal,
    duckdb: {
      ...(settings.duckdbThreads === undefined ? {} : { threads: settings.duckdbThreads }),
      ...(settings.duckdbMemoryLimit === undefined ? {} : { memoryLimit: settings.duckdbMemoryLimit }),
    },
    ...(settings.tempDir === undefined ? {} : { tempRoot: settings.tempDir }),
    ...(request.env === undefined ? {} : { env: request.env }),
  });
}

/** The name the shorthand's pipeline gets when its file names none. */
const DEFAULT_PIPELINE_NAME = 'serve';

export async function oneTopicPipeline(pipelinePath: string, settings: ServeSettings): Promise<Required<Omit<AnalysedPipeline, 'problems'>>> {
  const file = parse(await readSpecFile(pipelinePath)) as Record<string, unknown> | null;
  const text = stringify(oneTopicDefinition(file ?? {}, settings));
  const analysed = await analysePipelineText(text, pipelinePath);
  if (analysed.problems.length > 0 || analysed.graph === undefined || analysed.definition === undefined) {
    throw new InvalidInputError(`thund serve: ${analysed.problems.map(formatProblem).join('\n')}`, { context: { file: pipelinePath } });
  }
  return { definition: analysed.definition, graph: analysed.graph };
}

/** The pipeline definition (as the YAML file would hold it) the flags stand for. */
export function oneTopicDefinition(file: Readonly<Record<string, unknown>>, settings: ServeSettings): Record<string, unknown> {
  const debezium = settings.valueFormat === 'debezium-json' || settings.valueFormat === 'debezium-avro';
  const avro = settings.valueFormat === 'avro' || settings.valueFormat === 'debezium-avro';
  const options: Record<string, string> = {
    consumer_group: settings.group,
    dead_letter_table: settings.deadLetterTable ?? `${settings.table}_dead_letters`,
    session_timeout_ms: String(settings.sessionTimeoutMs),
    client_id: settings.clientId,
    ...(settings.readAheadBytes === undefined ? {} : { read_ahead_bytes: String(settings.readAheadBytes) }),
    ...(debezium ? { debezium_op_column: settings.debeziumOpColumn } : {}),
    ...(avro
      ? {
          schema_registry_url_env: settings.schemaRegistryUrlEnv,
          schema_registry_username_env: settings.schemaRegistryUsernameEnv,
          schema_registry_password_env: settings.schemaRegistryPasswordEnv,
        }
      : {}),
  };
  const properties: Record<string, string> = {
    [MAX_ROWS_PER_BATCH_PROPERTY]: String(settings.commitRecords),
    // Without --schema-auto-evolve the table keeps its columns: fields it lacks are not written, fields a batch lacks are null.
    [AUTO_EVOLVE_PROPERTY]: settings.schemaAutoEvolve === true ? 'true' : 'ignore-new',
  };
  const view = settings.view;
  return {
    pipeline: typeof file['pipeline'] === 'string' ? file['pipeline'] : DEFAULT_PIPELINE_NAME,
    ...(file['catalog'] === undefined ? {} : { catalog: file['catalog'] }),
    ...(file['storage'] === undefined ? {} : { storage: file['storage'] }),
    sources: {
      [view]: {
        format: 'kafka',
        topic: settings.topic,
        bootstrap_servers: settings.brokers.join(','),
        value_format: settings.valueFormat === 'debezium-json' ? 'debezium' : settings.valueFormat,
        options,
      },
    },
    tables: {
      [settings.table]: {
        kind: 'streaming_table',
        properties,
        sql: settings.sql === undefined ? `SELECT * EXCLUDE (_kafka_headers) FROM STREAM(${view})` : streamReadsOf(settings.sql, view),
        trigger: { processing_time: `${settings.commitIntervalMs} milliseconds` },
      },
    },
  };
}

/** `sql` with each read of `view` (a bare or double-quoted name in code, not already in STREAM()) made `STREAM(view)`. */
export function streamReadsOf(sql: string, view: string): string {
  const isCode = codeIndex(sql);
  const name = new RegExp(`(?<![\\w."])(?:${view}|"${view}")(?![\\w"(])`, 'gi');
  return sql.replace(name, (match: string, offset: number) => {
    if (!isCode(offset) && !match.startsWith('"')) return match;
    const before = sql.slice(0, offset);
    return /\bSTREAM\s*\(\s*$/i.test(before) ? match : `STREAM(${view})`;
  });
}
