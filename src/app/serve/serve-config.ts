/**
 * Settings of `thund serve`, from flags, environment variables and the pipeline file's optional
 * `serve:` block (a flag wins over its variable, which wins over the file), validated with zod.
 * The file's keys are the flag names with "_" for "-" (`value_format: avro`) and may reference
 * variables as ${NAME}. The schema registry's URL and credentials are never settings themselves:
 * `*_env` settings name the environment variables that hold them, and no error or log shows them.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../errors.js';
import { ENV_NAME } from '../../pipeline/env-template.js';
import { nameLengthProblem } from '../../pipeline/spec-schema.js';

export const SERVE_FLAGS = {
  'kafka-brokers': 'THUND_KAFKA_BROKERS',
  topic: 'THUND_KAFKA_TOPIC',
  group: 'THUND_KAFKA_GROUP',
  table: 'THUND_SERVE_TABLE',
  'dead-letter-table': 'THUND_SERVE_DEAD_LETTER_TABLE',
  'commit-interval-ms': 'THUND_SERVE_COMMIT_INTERVAL_MS',
  'commit-records': 'THUND_SERVE_COMMIT_RECORDS',
  sql: 'THUND_SERVE_SQL',
  view: 'THUND_SERVE_VIEW',
  'http-host': 'THUND_SERVE_HTTP_HOST',
  'http-port': 'THUND_SERVE_HTTP_PORT',
  'session-timeout-ms': 'THUND_KAFKA_SESSION_TIMEOUT_MS',
  'client-id': 'THUND_KAFKA_CLIENT_ID',
  'read-ahead-bytes': 'THUND_KAFKA_READ_AHEAD_BYTES',
  'temp-dir': 'THUND_SERVE_TEMP_DIR',
  'duckdb-threads': 'THUND_SERVE_DUCKDB_THREADS',
  'duckdb-memory-limit': 'THUND_SERVE_DUCKDB_MEMORY_LIMIT',
  'value-format': 'THUND_KAFKA_VALUE_FORMAT',
  'schema-registry-url-env': 'THUND_KAFKA_SCHEMA_REGISTRY_URL_ENV',
  'schema-registry-username-env': 'THUND_KAFKA_SCHEMA_REGISTRY_USERNAME_ENV',
  'schema-registry-password-env': 'THUND_KAFKA_SCHEMA_REGISTRY_PASSWORD_ENV',
  'debezium-op-column': 'THUND_KAFKA_DEBEZIUM_OP_COLUMN',
  'schema-auto-evolve': 'THUND_SERVE_SCHEMA_AUTO_EVOLVE',
  'trigger-interval-ms': 'THUND_SERVE_TRIGGER_INTERVAL_MS',
  'shutdown-grace-ms': 'THUND_SERVE_SHUTDOWN_GRACE_MS',
  'outage-give-up-ms': 'THUND_SERVE_OUTAGE_GIVE_UP_MS',
} as const;

export type ServeFlag = keyof typeof SERVE_FLAGS;

export const VALUE_FORMATS = ['json', 'avro', 'debezium-json', 'debezium-avro'] as const;
export type ValueFormat = (typeof VALUE_FORMATS)[number];

const TABLE_NAME = z
  .string()
  .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$/, 'write namespace.table, e.g. lake.events')
  .superRefine((name, context) => {
    for (const part of name.split('.')) {
      const problem = nameLengthProblem(part);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }
  });
/** Below the 30 s a supervisor (Docker, Kubernetes) usually waits before SIGKILL. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const envName = z.string().regex(ENV_NAME, 'the NAME of an environment variable (upper-case letters, digits and "_"), not its value');

const ServeSettingsSchema = z.object({
  brokers: z
    .string()
    .min(1)
    .transform((text) => text.split(',').map((b) => b.trim()).filter((b) => b !== ''))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'brokers are host:port')).min(1)),
  topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name (letters, digits, ".", "_", "-")'),
  group: z.string().min(1).max(255),
  table: TABLE_NAME,
  deadLetterTable: TABLE_NAME.optional(),
  commitIntervalMs: int(100, 3_600_000).default(10_000),
  commitRecords: int(1, 5_000_000).default(50_000),
  sql: z.string().min(1).optional(),
  view: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a SQL identifier').default('kafka_records'),
  httpHost: z.string().min(1).default('127.0.0.1'),
  httpPort: int(0, 65_535).default(9464),
  sessionTimeoutMs: int(6_000, 300_000).default(30_000),
  clientId: z.string().min(1).default('thund-serve'),
  readAheadBytes: int(1024 * 1024, 1024 ** 3).optional(),
  tempDir: z.string().min(1).optional(),
  duckdbThreads: int(1, 256).optional(),
  duckdbMemoryLimit: z.string().regex(/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'e.g. 512MB').optional(),
  valueFormat: z
    .string()
    .transform((s) => (s === 'debezium' ? 'debezium-json' : s))
    .pipe(z.enum(VALUE_FORMATS, { error: `one of ${VALUE_FORMATS.join(', ')}` }))
    .default('json'),
  schemaRegistryUrlEnv: envName.default('THUND_KAFKA_SCHEMA_REGISTRY_URL'),
  schemaRegistryUsernameEnv: envName.default('THUND_SCHEMA_REGISTRY_USERNAME'),
  schemaRegistryPasswordEnv: envName.default('THUND_SCHEMA_REGISTRY_PASSWORD'),
  debeziumOpColumn: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a column name').default('_op'),
  schemaAutoEvolve: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(['true', 'false'], { error: 'true or false' }))
    .transform((s) => s === 'true')
    .optional(),
  /** Pipeline mode: how often the graph runs when no flow declares a processing-time trigger. */
  triggerIntervalMs: int(100, 86_400_000).default(10_000),
  /** After SIGTERM, how long the batch in progress may take to finish before serve exits without it. */
  shutdownGraceMs: int(0, 3_600_000).default(DEFAULT_SHUTDOWN_GRACE_MS),
  /** How long an outage of Kafka, the catalog or storage is retried before serve stops (default: for ever). */
  outageGiveUpMs: int(1_000, 7 * 86_400_000).optional(),
});

export type ServeSettings = z.output<typeof ServeSettingsSchema>;

const FIELD_OF: Readonly<Record<ServeFlag, keyof ServeSettings>> = {
  'kafka-brokers': 'brokers',
  topic: 'topic',
  group: 'group',
  table: 'table',
  'dead-letter-table': 'deadLetterTable',
  'commit-interval-ms': 'commitIntervalMs',
  'commit-records': 'commitRecords',
  sql: 'sql',
  view: 'view',
  'http-host': 'httpHost',
  'http-port': 'httpPort',
  'session-timeout-ms': 'sessionTimeoutMs',
  'client-id': 'clientId',
  'read-ahead-bytes': 'readAheadBytes',
  'temp-dir': 'tempDir',
  'duckdb-threads': 'duckdbThreads',
  'duckdb-memory-limit': 'duckdbMemoryLimit',
  'value-format': 'valueFormat',
  'schema-registry-url-env': 'schemaRegistryUrlEnv',
  'schema-registry-username-env': 'schemaRegistryUsernameEnv',
  'schema-registry-password-env': 'schemaRegistryPasswordEnv',
  'debezium-op-column': 'debeziumOpColumn',
  'schema-auto-evolve': 'schemaAutoEvolve',
  'trigger-interval-ms': 'triggerIntervalMs',
  'shutdown-grace-ms': 'shutdownGraceMs',
  'outage-give-up-ms': 'outageGiveUpMs',
};

/** The settings a pipeline served as a whole uses; the others belong to the single-topic mode. */
export const PIPELINE_MODE_FLAGS: readonly ServeFlag[] = ['http-host', 'http-port', 'trigger-interval-ms', 'shutdown-grace-ms', 'outage-give-up-ms'];

export interface PipelineServeSettings {
  readonly httpHost: string;
  readonly httpPort: number;
  readonly triggerIntervalMs: number;
  readonly shutdownGraceMs: number;
  readonly outageGiveUpMs?: number | undefined;
}

/**
 * Settings of `thund serve` on a pipeline with flows (no --topic/--table): the HTTP address and
 * the trigger interval, from flags, variables or the file as in the single-topic mode. A flag of
 * the single-topic mode given on the command line is refused, naming it.
 */
export function pipelineServeSettings(
  flags: Readonly<Partial<Record<ServeFlag, string>>>,
  env: Readonly<Record<string, string | undefined>>,
  file?: ServeFileSettings,
): PipelineServeSettings {
  const foreign = (Object.keys(flags) as ServeFlag[]).filter((flag) => flags[flag] !== undefined && !PIPELINE_MODE_FLAGS.includes(flag));
  if (foreign.length > 0) {
    throw new InvalidInputError(
      `thund serve: ${foreign.map((f) => `--${f}`).join(', ')} belong to serving one topic into one table (--topic and --table); a pipeline with flows takes its sources, tables and SQL from the file`,
      { context: { flags: foreign.join(',') } },
    );
  }
  const raw: Record<string, string> = {};
  for (const flag of PIPELINE_MODE_FLAGS) {
    const value = [flags[flag], env[SERVE_FLAGS[flag]], file?.values[flag]].find((v) => v !== undefined && v !== '');
    if (value !== undefined) raw[FIELD_OF[flag]] = value;
  }
  const parsed = ServeSettingsSchema.pick({ httpHost: true, httpPort: true, triggerIntervalMs: true, shutdownGraceMs: true, outageGiveUpMs: true }).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? '');
    const flag = PIPELINE_MODE_FLAGS.find((f) => FIELD_OF[f] === field) ?? field;
    throw new InvalidInputError(`thund serve: --${flag} (or ${SERVE_FLAGS[flag as ServeFlag] ?? flag}): ${issue?.message ?? 'invalid'}`, { context: { flag } });
  }
  return parsed.data;
}

/** The pipeline file's `serve:` block, values already as text with ${NAME} substituted. */
export interface ServeFileSettings {
  readonly path: string;
  readonly values: Readonly<Partial<Record<ServeFlag, string>>>;
}

/** The `serve:` key of a flag: `value_format` for --value-format. */
export const fileKeyOf = (flag: ServeFlag): string => flag.replaceAll('-', '_');

export function serveSettings(
  flags: Readonly<Partial<Record<ServeFlag, string>>>,
  env: Readonly<Record<string, string | undefined>>,
  file?: ServeFileSettings,
): ServeSettings {
  const raw: Record<string, string> = {};
  const fromFile = new Set<string>();
  for (const [flag, variable] of Object.entries(SERVE_FLAGS) as Array<[ServeFlag, string]>) {
    const given = [flags[flag], env[variable]].find((v) => v !== undefined && v !== '');
    const value = given ?? file?.values[flag];
    if (value === undefined || value === '') continue;
    raw[FIELD_OF[flag]] = value;
    if (given === undefined) fromFile.add(FIELD_OF[flag]);
  }
  const parsed = ServeSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    const flag = (Object.keys(FIELD_OF) as ServeFlag[]).find((f) => FIELD_OF[f] === field);
    let where = field;
    if (flag !== undefined) where = fromFile.has(field) && file !== undefined ? `serve.${fileKeyOf(flag)} in ${file.path}` : `--${flag} (or ${SERVE_FLAGS[flag]})`;
    const message = issue.code === 'invalid_type' && raw[field] === undefined ? 'is required' : issue.message;
    return `${where}: ${message}`;
  });
  throw new InvalidInputError(`thund serve: ${problems.join('; ')}`, { context: { field: String(parsed.error.issues[0]?.path[0] ?? '') } });
}
