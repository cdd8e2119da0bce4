/**
 * YAML pipeline spec → resolved, immutable PipelineSpec (absolute source paths, parsed table
 * identifiers, each element with its origin in the file). Errors are InvalidInputErrors naming
 * `file:line:column: field.path: problem`.
 *
 * ```yaml
 * pipeline: quickstart
 * sources:
 *   orders: { format: parquet, path: data/*.parquet }   # path or list; relative to this file
 * tables:
 *   lake.orders: { mode: append, properties: { write.target-file-size-bytes: 536870912 } }
 * flows:
 *   load_orders: { target: lake.orders, sql: SELECT … FROM orders }
 * catalog: { type: rest, uri: "${REST_URI}", auth: { type: bearer, token_env: REST_TOKEN } }  # optional
 * storage: { s3: { endpoint: http://127.0.0.1:9000, region: us-east-1, path_style: true } }  # optional
 * ```
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError } from '../errors.js';
import { issuesToProblems, PipelineSpecWire, SQL_IDENTIFIER, TABLE_KEY, type WriteMode } from './spec-schema.js';
import { catalogFromWire, storageFromWire, type CatalogSpec, type StorageSpec } from './connection-spec.js';
import { didYouMean } from './suggest.js';
import { parsePartitionField, type PartitionField } from './ir/partition-field.js';
import { parseYaml, type FieldPath, type SourcePosition, type SpecProblem, type YamlLocator } from './yaml-locator.js';

export type { WriteMode } from './spec-schema.js';

/** Where an element of the spec was declared, for messages at run time. */
export interface SpecOrigin extends SourcePosition {
  readonly file: string;
}

export interface SpecTableIdentifier {
  readonly namespace: readonly string[];
  readonly name: string;
}

export interface ParquetSourceSpec {
  /** A SQL identifier: the run exposes the files as a DuckDB view of this name. */
  readonly name: string;
  readonly format: 'parquet';
  /** Absolute paths or globs (URIs such as s3://… are kept as written). */
  readonly paths: readonly string[];
  readonly origin: SpecOrigin;
}

export type SourceSpec = ParquetSourceSpec;

export interface TableSpec {
  /** The key as written, e.g. `lake.orders`. */
  readonly key: string;
  readonly identifier: SpecTableIdentifier;
  readonly mode: WriteMode;
  /** With mode upsert: the key columns. */
  readonly keys?: readonly string[];
  readonly properties: Readonly<Record<string, string>>;
  /**
   * Partition terms, e.g. `day(ts)`, `bucket(16, id)`; `[]` is unpartitioned. Absent: a new table
   * is unpartitioned and an existing table keeps its spec.
   */
  readonly partitionedBy?: readonly PartitionField[];
  readonly origin: SpecOrigin;
}

export interface FlowSpec {
  readonly name: string;
  /** The `tables` key this flow writes to. */
  readonly target: string;
  readonly targetIdentifier: SpecTableIdentifier;
  /** DuckDB SQL over the sources. */
  readonly sql: string;
  readonly origin: SpecOrigin;
}

export interface PipelineSpec {
  readonly name: string;
  /** Absolute path of the spec file (relative paths in it resolve from its folder). */
  readonly specPath: string;
  readonly sources: readonly SourceSpec[];
  readonly tables: readonly TableSpec[];
  readonly flows: readonly FlowSpec[];
  /** Where the tables live; the embedded SQL catalog when the spec has no `catalog` block. */
  readonly catalog: CatalogSpec;
  /** How data files (and s3:// sources) on object storage are reached. */
  readonly storage: StorageSpec;
}

/** Reads and resolves a spec file; a missing or unreadable file is an InvalidInputError naming it. */
export async function loadPipelineSpec(specPath: string): Promise<PipelineSpec> {
  return parsePipelineSpec(await readSpecFile(specPath), specPath);
}

/** The text of a spec file; a missing or unreadable file is an InvalidInputError naming it. */
export async function readSpecFile(specPath: string): Promise<string> {
  try {
    return await readFile(specPath, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : 'cannot read file';
    throw new InvalidInputError(`${specPath}: ${reason} (pipeline spec at ${path.resolve(specPath)})`, {
      cause,
      context: { file: specPath },
    });
  }
}

/** Parses spec text; `sourceName` is the spec file's path, used in messages and to resolve paths. */
export function parsePipelineSpec(text: string, sourceName: string): PipelineSpec {
  const yaml = parseYaml(text, sourceName);
  const data = yaml.data();
  if (data === null || data === undefined) {
    throw yaml.error([{ path: [], message: 'the spec is empty; expected the fields pipeline, sources, tables, flows' }]);
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw yaml.error([{ path: [], message: 'the spec must be a mapping with the fields pipeline, sources, tables, flows' }]);
  }
  const parsed = PipelineSpecWire.safeParse(data, { reportInput: true });
  if (!parsed.success) throw yaml.error(issuesToProblems(parsed.error.issues));
  const wire = parsed.data;

  const problems = [...checkNames(wire), ...checkCounts(wire), ...checkTargets(wire)];
  if (problems.length > 0) throw yaml.error(problems);
  return resolve(wire, sourceName, yaml);
}

function checkNames(wire: PipelineSpecWire): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Map<string, string>();
  for (const name of Object.keys(wire.sources)) {
    if (!SQL_IDENTIFIER.test(name)) {
      problems.push({
        path: ['sources', name],
        target: 'key',
        message: `source name "${name}" must be a SQL identifier (letters, digits, "_", not starting with a digit): it becomes a view`,
      });
    }
    // DuckDB identifiers are case-insensitive: Orders and orders would be the same view.
    const folded = name.toLowerCase();
    const earlier = seen.get(folded);
    if (earlier !== undefined) {
      problems.push({ path: ['sources', name], target: 'key', message: `source "${name}" clashes with "${earlier}" (SQL names ignore case)` });
    }
    seen.set(folded, name);
  }
  if (Object.keys(wire.sources).length === 0) problems.push({ path: ['sources'], message: 'declare at least one source' });
  for (const key of Object.keys(wire.tables)) {
    if (!TABLE_KEY.test(key)) {
      problems.push({
        path: ['tables', key],
        target: 'key',
        message: `table name "${key}" must be namespace.table (e.g. lake.orders), each part a SQL identifier`,
      });
    }
  }
  for (const name of Object.keys(wire.flows)) {
    if (!SQL_IDENTIFIER.test(name)) {
      problems.push({ path: ['flows', name], target: 'key', message: `flow name "${name}" must be a SQL identifier (letters, digits, "_")` });
    }
  }
  return problems;
}

/** This version runs exactly one flow into one table. */
function checkCounts(wire: PipelineSpecWire): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const field of ['tables', 'flows'] as const) {
    const names = Object.keys(wire[field]);
    const what = field === 'tables' ? 'table' : 'flow';
    if (names.length === 0) problems.push({ path: [field], message: `declare exactly one ${what}` });
    if (names.length > 1) {
      problems.push({
        path: [field, names[1] ?? ''],
        target: 'key',
        message: `only one ${what} per pipeline is supported so far; found ${names.length} (${names.join(', ')})`,
      });
    }
  }
  return problems;
}

function checkTargets(wire: PipelineSpecWire): SpecProblem[] {
  const tables = Object.keys(wire.tables);
  return Object.entries(wire.flows)
    .filter(([, flow]) => !Object.hasOwn(wire.tables, flow.target))
    .map(([name, flow]) => ({
      path: ['flows', name, 'target'],
      message: `"${flow.target}" is not a table declared under "tables"${didYouMean(flow.target, tables)}`,
    }));
}

function resolve(wire: PipelineSpecWire, sourceName: string, yaml: YamlLocator): PipelineSpec {
  const specPath = path.resolve(sourceName);
  const folder = path.dirname(specPath);
  const origin = (...fieldPath: string[]): SpecOrigin => ({ file: sourceName, ...yaml.position(fieldPath, 'key') });
  const locateValue = (fieldPath: FieldPath): SourcePosition => yaml.position(fieldPath, 'value');
  return {
    name: wire.pipeline,
    specPath,
    sources: Object.entries(wire.sources).map(([name, source]) => ({
      name,
      format: source.format,
      paths: (typeof source.path === 'string' ? [source.path] : source.path).map((p) => resolveDataPath(folder, p)),
      origin: origin('sources', name),
    })),
    tables: Object.entries(wire.tables).map(([key, table]) => ({
      key,
      identifier: parseTableKey(key),
      mode: table.mode,
      ...(table.keys === undefined ? {} : { keys: table.keys }),
      properties: { ...table.properties },
      ...(table.partitioned_by === undefined ? {} : { partitionedBy: table.partitioned_by.map((term) => parsePartitionField(term)!) }),
      origin: origin('tables', key),
    })),
    flows: Object.entries(wire.flows).map(([name, flow]) => ({
      name,
      target: flow.target,
      targetIdentifier: parseTableKey(flow.target),
      sql: flow.sql.trim(),
      origin: origin('flows', name),
    })),
    catalog: catalogFromWire(wire.catalog, sourceName, locateValue),
    storage: storageFromWire(wire.storage, sourceName, locateValue),
  };
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

function resolveDataPath(folder: string, written: string): string {
  if (URI.test(written)) return written;
  return path.resolve(folder, written);
}

/** `a.b.orders` → { namespace: ['a', 'b'], name: 'orders' } (validated by TABLE_KEY first). */
export function parseTableKey(key: string): SpecTableIdentifier {
  const parts = key.split('.');
  const name = parts.pop() ?? key;
  return { namespace: parts, name };
}
