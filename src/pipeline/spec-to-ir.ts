/**
 * A YAML pipeline definition → the IR graph, through the same declarations the builder uses.
 * Nothing is thrown for a bad spec: every problem (YAML syntax, schema, names) comes back at once
 * with its file:line:column, ready for validate() to add the graph-level ones.
 *
 * The skeleton's spec is a definition too: its tables become materialized views, its flows
 * append flows (a table with `mode: overwrite` makes its flows' output mode `complete`, `mode: upsert`
 * `update` by the table's `keys`).
 */
import path from 'node:path';
import { InvalidInputError } from '../errors.js';
import { catalogFromWire, storageFromWire, type CatalogSpec, type StorageSpec } from './connection-spec.js';
import { PipelineDefinitionWire, type ApplyChangesWire, type DefinitionTableWire } from './definition-schema.js';
import { sink, table, view, type Declared, type ImplicitFlowInput } from './ir/dataset-declarations.js';
import { flow, kafkaOptions, source, type ApplyChangesInput, type ExpectationsInput, type StreamingInput, type TriggerInput } from './ir/declarations.js';
import type { SourceOptions } from './ir/dataset.js';
import type { ChangeFormat } from './ir/flow.js';
import type { PipelineGraph } from './ir/graph.js';
import type { Origin } from './ir/origin.js';
import { GraphRegistry } from './ir/registry.js';
import type { OutputMode } from './ir/streaming.js';
import { PROBLEM_CODES, type PipelineProblem } from './problems.js';
import { issuesToProblems, nameLengthProblem, SQL_IDENTIFIER, TABLE_KEY, type WriteMode } from './spec-schema.js';
import { expandSpecEnv } from './spec-env.js';
import type { Environment } from './env-template.js';
import { formatFieldPath, parseYaml, type FieldPath, type SpecProblem, type YamlLocator } from './yaml-locator.js';

export interface PipelineDefinition {
  readonly graph: PipelineGraph;
  /** Absolute path of the spec file. */
  readonly specPath: string;
  readonly catalog: CatalogSpec;
  readonly storage: StorageSpec;
}

export type DefinitionResult =
  | { readonly ok: true; readonly definition: PipelineDefinition }
  | { readonly ok: false; readonly problems: readonly PipelineProblem[] };

export function parsePipelineDefinition(text: string, sourceName: string, env: Environment = process.env): DefinitionResult {
  let yaml: YamlLocator;
  try {
    yaml = parseYaml(text, sourceName);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const { line, column } = error.context;
    const message = error.message.replace(/^[^\n]*?:\d+:\d+: /, '');
    return failed([{ code: PROBLEM_CODES.YAML_SYNTAX, message, origin: { file: sourceName, line: Number(line ?? 1), column: Number(column ?? 1) } }]);
  }
  const located = (problems: readonly SpecProblem[]): DefinitionResult =>
    failed(
      problems.map((problem) => {
        const at = yaml.position(problem.path, problem.target);
        const field = formatFieldPath(problem.path);
        return { code: PROBLEM_CODES.SPEC, message: `${field === '' ? '' : `${field}: `}${problem.message}`, origin: { file: sourceName, ...at } };
      }),
    );
  const data = yaml.data();
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) {
    return located([{ path: [], message: 'the spec must be a mapping with the fields pipeline, sources, tables, views, sinks, flows' }]);
  }
  const parsed = PipelineDefinitionWire.safeParse(data, { reportInput: true });
  if (!parsed.success) return located(issuesToProblems(parsed.error.issues));
  const nameProblems = checkNames(parsed.data);
  if (nameProblems.length > 0) return located(nameProblems);
  const expanded = expandSpecEnv(parsed.data, env);
  if (expanded.problems.length > 0) return located(expanded.problems);
  try {
    return { ok: true, definition: toDefinition(expanded.wire, sourceName, yaml) };
  } catch (error) {
    // Declarations reject only what the wire schema already refused; this is a safety net.
    if (error instanceof InvalidInputError) return located([{ path: [], message: error.message }]);
    throw error;
  }
}

/** The skeleton's table modes as output modes: upsert updates rows by the table's keys. */
const OUTPUT_MODE_OF_TABLE_MODE: Readonly<Record<WriteMode, OutputMode>> = { append: 'append', overwrite: 'complete', upsert: 'update' };

const failed = (problems: readonly PipelineProblem[]): DefinitionResult => ({ ok: false, problems });

function checkNames(wire: PipelineDefinitionWire): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const field of ['sources', 'views', 'sinks', 'flows'] as const) {
    for (const name of Object.keys(wire[field])) {
      const tooLong = nameLengthProblem(name);
      if (!SQL_IDENTIFIER.test(name)) {
        problems.push({ path: [field, name], target: 'key', message: `name "${name}" must be a SQL identifier (letters, digits, "_", not starting with a digit)` });
      } else if (tooLong !== undefined) {
        problems.push({ path: [field, name], target: 'key', message: `name ${tooLong}` });
      }
    }
  }
  for (const key of Object.keys(wire.tables)) {
    const tooLong = key.split('.').map(nameLengthProblem).find((problem) => problem !== undefined);
    if (!TABLE_KEY.test(key)) {
      problems.push({ path: ['tables', key], target: 'key', message: `table name "${key}" must be namespace.table (e.g. lake.orders), each part a SQL identifier` });
    } else if (tooLong !== undefined) {
      problems.push({ path: ['tables', key], target: 'key', message: `table name part ${tooLong}` });
    }
  }
  for (const [field, entries] of [['tables', wire.tables], ['views', wire.views], ['flows', wire.flows]] as const) {
    for (const [name, entry] of Object.entries(entries)) {
      const changes = entry.apply_changes;
      if (changes?.column_list !== undefined && changes.except_column_list !== undefined) {
        problems.push({ path: [field, name, 'apply_changes', 'except_column_list'], target: 'key', message: 'give either column_list or except_column_list, not both' });
      }
      if (changes?.track_history_column_list !== undefined && changes.track_history_except_column_list !== undefined) {
        problems.push({ path: [field, name, 'apply_changes', 'track_history_except_column_list'], target: 'key', message: 'give either track_history_column_list or track_history_except_column_list, not both' });
      }
      if (changes !== undefined && entry.once === true) {
        problems.push({ path: [field, name, 'once'], target: 'key', message: 'an apply_changes flow cannot be a once flow' });
      }
    }
  }
  return problems;
}

function toDefinition(wire: PipelineDefinitionWire, sourceName: string, yaml: YamlLocator): PipelineDefinition {
  const specPath = path.resolve(sourceName);
  const folder = path.dirname(specPath);
  const at = (fieldPath: FieldPath, target: 'key' | 'value' = 'key'): Origin => ({ file: sourceName, ...yaml.position(fieldPath, target) });
  const origins = (field: string, name: string) => ({
    element: at([field, name]),
    query: at([field, name, 'sql'], 'value'),
    expectation: (expectation: string) => at([field, name, 'expectations', expectation]),
  });
  const registry = new GraphRegistry(wire.pipeline);
  const add = (declared: Declared): void => {
    registry.registerDataset(declared.dataset);
    if (declared.flow !== undefined) registry.registerFlow(declared.flow);
  };

  for (const [name, wireSource] of Object.entries(wire.sources)) {
    const options: SourceOptions =
      wireSource.format === 'parquet'
        ? { format: 'parquet', paths: (typeof wireSource.path === 'string' ? [wireSource.path] : wireSource.path).map((p) => resolveDataPath(folder, p)) }
        : kafkaOptions({
            topics: [...(wireSource.topic === undefined ? [] : [wireSource.topic]), ...(wireSource.topics ?? [])],
            ...(wireSource.bootstrap_servers === undefined ? {} : { bootstrapServers: wireSource.bootstrap_servers }),
            valueFormat: wireSource.value_format,
            startingOffsets: wireSource.starting_offsets,
            options: wireSource.options,
          });
    registry.registerDataset(
      source(
        name,
        options,
        {
          ...(wireSource.schema === undefined ? {} : { schema: wireSource.schema }),
          ...(wireSource.watermark === undefined ? {} : { watermark: wireSource.watermark }),
          ...(wireSource.comment === undefined ? {} : { comment: wireSource.comment }),
        },
        at(['sources', name]),
      ),
    );
  }
  const defaultModes = new Map<string, OutputMode>();
  for (const [name, wireTable] of Object.entries(wire.tables)) {
    if (wireTable.mode !== undefined) defaultModes.set(name, OUTPUT_MODE_OF_TABLE_MODE[wireTable.mode]);
    const kind = wireTable.kind === 'streaming_table' ? 'streaming-table' : 'materialized-view';
    add(
      table(
        kind,
        name,
        {
          ...tableSettings(wireTable),
          ...implicitFlow(wireTable, defaultModes.get(name)),
        },
        origins('tables', name),
      ),
    );
  }
  for (const [name, wireView] of Object.entries(wire.views)) {
    add(
      view(
        wireView.temporary ? 'temporary-view' : 'view',
        name,
        {
          ...(wireView.schema === undefined ? {} : { schema: wireView.schema }),
          ...(wireView.comment === undefined ? {} : { comment: wireView.comment }),
          ...expectationsOf(wireView.expectations),
          ...implicitFlow(wireView, undefined),
          sql: wireView.sql,
        },
        origins('views', name),
      ),
    );
  }
  for (const [name, wireSink] of Object.entries(wire.sinks)) {
    add(
      sink(
        name,
        {
          format: wireSink.format,
          options: wireSink.options,
          ...(wireSink.comment === undefined ? {} : { comment: wireSink.comment }),
          ...expectationsOf(wireSink.expectations),
        },
        origins('sinks', name),
      ),
    );
  }
  for (const [name, wireFlow] of Object.entries(wire.flows)) {
    const input = implicitFlow(wireFlow, defaultModes.get(wireFlow.target));
    registry.registerFlow(flow(name, { ...input, target: wireFlow.target, sql: wireFlow.sql }, origins('flows', name)));
  }
  const locateValue = (fieldPath: FieldPath) => yaml.position(fieldPath, 'value');
  return {
    graph: registry.build(),
    specPath,
    catalog: catalogFromWire(wire.catalog, sourceName, locateValue),
    storage: storageFromWire(wire.storage, sourceName, locateValue),
  };
}

function tableSettings(wire: DefinitionTableWire) {
  return {
    properties: wire.properties,
    ...(wire.keys === undefined ? {} : { keys: wire.keys }),
    ...(wire.partitioned_by === undefined ? {} : { partitionedBy: wire.partitioned_by }),
    ...(wire.schema === undefined ? {} : { schema: wire.schema }),
    ...(wire.comment === undefined ? {} : { comment: wire.comment }),
    ...expectationsOf(wire.expectations),
  };
}

function expectationsOf(wire: Readonly<Record<string, string | { condition: string; action: 'warn' | 'drop' | 'fail' }>> | undefined): { expectations?: ExpectationsInput } {
  return wire === undefined ? {} : { expectations: wire };
}

interface ImplicitFlowWire {
  readonly sql?: string | undefined;
  readonly once?: boolean | undefined;
  readonly apply_changes?: ApplyChangesWire | undefined;
  readonly output_mode?: OutputMode | undefined;
  readonly watermark?: { column: string; delay: string } | undefined;
  readonly trigger?: 'once' | 'available_now' | { processing_time: string } | undefined;
}

function implicitFlow(wire: ImplicitFlowWire, defaultMode: OutputMode | undefined): ImplicitFlowInput {
  const outputMode = wire.output_mode ?? (wire.apply_changes === undefined ? defaultMode : undefined);
  const streaming: StreamingInput = {
    ...(outputMode === undefined ? {} : { outputMode }),
    ...(wire.watermark === undefined ? {} : { watermark: wire.watermark }),
    ...(wire.trigger === undefined ? {} : { trigger: triggerInput(wire.trigger) }),
  };
  return {
    ...streaming,
    ...(wire.sql === undefined ? {} : { sql: wire.sql }),
    ...(wire.once === true ? { kind: 'once' as const } : {}),
    ...(wire.apply_changes === undefined ? {} : { applyChanges: applyChangesInput(wire.apply_changes) }),
  };
}

function triggerInput(wire: NonNullable<ImplicitFlowWire['trigger']>): TriggerInput {
  if (wire === 'once') return 'once';
  if (wire === 'available_now') return 'available-now';
  return { processingTime: wire.processing_time };
}

function applyChangesInput(wire: ApplyChangesWire): ApplyChangesInput {
  return {
    keys: wire.keys,
    sequenceBy: wire.sequence_by,
    ...(wire.change_format === undefined ? {} : { changeFormat: changeFormat(wire.change_format) }),
    ...(wire.apply_as_deletes === undefined ? {} : { applyAsDeletes: wire.apply_as_deletes }),
    ...(wire.apply_as_truncates === undefined ? {} : { applyAsTruncates: wire.apply_as_truncates }),
    ignoreNullUpdates: wire.ignore_null_updates,
    ...(wire.column_list === undefined ? {} : { columnList: wire.column_list }),
    ...(wire.except_column_list === undefined ? {} : { exceptColumnList: wire.except_column_list }),
    storedAsScdType: wire.stored_as_scd_type === 2n ? 2 : 1,
    ...(wire.track_history_column_list === undefined ? {} : { trackHistoryColumnList: wire.track_history_column_list }),
    ...(wire.track_history_except_column_list === undefined ? {} : { trackHistoryExceptColumnList: wire.track_history_except_column_list }),
  };
}

function changeFormat(wire: NonNullable<ApplyChangesWire['change_format']>): ChangeFormat {
  return typeof wire === 'string' ? { kind: wire } : { kind: 'row-kind', column: wire.row_kind };
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

function resolveDataPath(folder: string, written: string): string {
  return URI.test(written) ? written : path.resolve(folder, written);
}
