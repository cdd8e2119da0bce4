/**
 * Partition spec evolution (spec §5) as commit data: add a partition field, remove one, rename
 * one, producing `add-spec` + `set-default-spec` with `assert-default-spec-id` +
 * `assert-last-assigned-partition-id`. Old specs stay in the metadata, so files written under
 * them keep their spec id and partition tuples. Follows Java's rules: a new field takes
 * last-partition-id + 1, except that v2+ tables reuse the id of an equal field (same source and
 * transform) from any earlier spec; a removed field is dropped in v2+ and replaced by a `void`
 * field with the same id in v1 (whose readers expect field ids to stay in place); an equal spec
 * already in the table is reused.
 */
import { InvalidInputError, ThundError } from '../errors.js';
import type { TableRequirement } from './requirements.js';
import { allFields, findField } from './schema.js';
import { matchByName } from './schema-evolution.js';
import { currentSchema, defaultSpec } from './snapshot-ancestry.js';
import type { PartitionField, PartitionSpec, TableMetadata } from './table-metadata.js';
import { transformResultType } from './transforms/result-type.js';
import { parseTransform, transformToString, type Transform } from './transforms/transform.js';
import type { NestedField, Schema } from './types.js';
import type { TableUpdate } from './updates.js';

export type PartitionSpecChange =
  /** `source` is a dotted column path or an array of names; `name` defaults to Java's (`id_bucket_16`). */
  | { readonly action: 'add-field'; readonly source: string | readonly string[]; readonly transform: string; readonly name?: string }
  | { readonly action: 'remove-field'; readonly name: string }
  | { readonly action: 'rename-field'; readonly name: string; readonly newName: string };

export interface PartitionSpecUpdate {
  /** The default spec after the commit (its id is the one the catalog will give it). */
  readonly spec: PartitionSpec;
  /** Empty when the spec does not change. */
  readonly updates: readonly TableUpdate[];
  readonly requirements: readonly TableRequirement[];
}

const LAST_ADDED = -1;
const TIME_TRANSFORMS: ReadonlySet<string> = new Set(['year', 'month', 'day', 'hour']);

function invalid(message: string, context: Record<string, string | number> = {}): InvalidInputError {
  return new InvalidInputError(message, { context });
}

class SpecEvolver {
  private readonly base: PartitionSpec;
  private readonly schema: Schema;
  private readonly deletes = new Set<number>();
  private readonly renames = new Map<number, string>();
  private readonly adds: PartitionField[] = [];
  private lastPartitionId: number;

  constructor(private readonly metadata: TableMetadata) {
    this.base = defaultSpec(metadata);
    this.schema = currentSchema(metadata);
    this.lastPartitionId = metadata.lastPartitionId;
    const unknown = this.base.fields.find((f) => parseTransform(f.transform).kind === 'unknown');
    if (unknown !== undefined) {
      throw invalid(`Cannot evolve partition spec ${this.base.specId}: field ${unknown.name} has unknown transform ${unknown.transform}`, {
        partitionField: unknown.name,
      });
    }
  }

  add(source: string | readonly string[], transformText: string, name: string | undefined): void {
    const column = this.resolveSource(source);
    const transform = parseTransform(transformText);
    const site = { partitionField: name ?? transformText, sourceColumn: column.path };
    try {
      transformResultType(transform, column.field.type, site);
    } catch (error) {
      if (!(error instanceof ThundError)) throw error;
      throw invalid(`Cannot add partition field: ${error.message}`, { column: column.path, transform: transformText });
    }
    const text = transformToString(transform);
    const existing = this.base.fields.find((f) => f.sourceId === column.field.id && canonicalTransform(f.transform) === text);
    if (existing !== undefined && this.deletes.has(existing.fieldId)) {
      // Removing and re-adding the same field in one change is no change (apart from a rename).
      this.deletes.delete(existing.fieldId);
      if (name !== undefined && name !== existing.name) this.rename(existing.name, name);
      return;
    }
    if (existing !== undefined) {
      throw invalid(`Cannot add partition field ${text}(${column.path}): the spec already has it as ${existing.name}`, {
        partitionField: existing.name,
      });
    }
    if (this.adds.some((f) => f.sourceId === column.field.id && f.transform === text)) {
      throw invalid(`Cannot add partition field ${text}(${column.path}) twice`, { column: column.path });
    }
    const fieldName = name ?? defaultName(column.path, transform);
    const fieldId = this.fieldIdFor(column.field.id, text, name);
    const field: PartitionField = { sourceId: column.field.id, fieldId, name: fieldName, transform: text };
    const sameName = this.base.fields.find((f) => f.name === fieldName);
    if (sameName !== undefined && !this.deletes.has(sameName.fieldId) && !this.renames.has(sameName.fieldId)) {
      if (canonicalTransform(sameName.transform) !== 'void') {
        throw invalid(`Cannot add partition field ${fieldName}: the spec already has a field of that name`, { partitionField: fieldName });
      }
      this.renames.set(sameName.fieldId, `${sameName.name}_${sameName.fieldId}`);
    } else if (sameName !== undefined && this.deletes.has(sameName.fieldId)) {
      this.renames.set(sameName.fieldId, `${sameName.name}_${sameName.fieldId}`);
    }
    if (this.adds.some((f) => f.name === fieldName)) {
      throw invalid(`Cannot add two partition fields named ${fieldName}`, { partitionField: fieldName });
    }
    this.adds.push(field);
  }

  remove(name: string): void {
    if (this.adds.some((f) => f.name === name)) {
      throw invalid(`Cannot remove partition field ${name}: it is added in the same change`, { partitionField: name });
    }
    const field = this.baseField(name, 'remove');
    if (this.renames.has(field.fieldId)) {
      throw invalid(`Cannot rename and remove partition field ${name} in one change`, { partitionField: name });
    }
    this.deletes.add(field.fieldId);
  }

  rename(name: string, newName: string): void {
    if (newName.trim() === '') throw invalid(`Cannot rename partition field ${name}: the new name is empty`, { partitionField: name });
    if (this.adds.some((f) => f.name === name)) {
      throw invalid(`Cannot rename partition field ${name}: it is added in the same change`, { partitionField: name });
    }
    const field = this.baseField(name, 'rename');
    if (this.deletes.has(field.fieldId)) {
      throw invalid(`Cannot remove and rename partition field ${name} in one change`, { partitionField: name });
    }
    const occupant = this.base.fields.find((f) => f.name === newName && f.fieldId !== field.fieldId);
    if (occupant !== undefined && canonicalTransform(occupant.transform) === 'void') {
      this.renames.set(occupant.fieldId, `${occupant.name}_${occupant.fieldId}`);
    }
    this.renames.set(field.fieldId, newName);
  }

  build(): PartitionField[] {
    const kept: PartitionField[] = [];
    for (const field of this.base.fields) {
      const name = this.renames.get(field.fieldId) ?? field.name;
      if (!this.deletes.has(field.fieldId)) kept.push({ ...field, name });
      else if (this.metadata.formatVersion === 1) kept.push({ ...field, name, transform: 'void' });
    }
    const fields = [...kept, ...this.adds];
    validate(fields, this.schema);
    return fields;
  }

  private baseField(name: string, verb: string): PartitionField {
    const field = this.base.fields.find((f) => f.name === name);
    if (field === undefined) {
      throw invalid(`Cannot ${verb} partition field ${name}: spec ${this.base.specId} has no such field`, { partitionField: name });
    }
    return field;
  }

  /** v2+: the id of an equal field (source, transform, and name when given) of any spec; else a fresh one. */
  private fieldIdFor(sourceId: number, transform: string, name: string | undefined): number {
    if (this.metadata.formatVersion >= 2) {
      for (const spec of this.metadata.partitionSpecs) {
        const same = spec.fields.find(
          (f) => f.sourceId === sourceId && canonicalTransform(f.transform) === transform && (name === undefined || f.name === name),
        );
        if (same !== undefined) return same.fieldId;
      }
    }
    this.lastPartitionId += 1;
    return this.lastPartitionId;
  }

  private resolveSource(source: string | readonly string[]): { field: NestedField; path: string } {
    const names = typeof source === 'string' ? source.split('.') : [...source];
    const shown = names.join('.');
    let fields: readonly NestedField[] = this.schema.fields;
    let found: NestedField | undefined;
    for (const [i, name] of names.entries()) {
      const index = matchByName(fields, name);
      if (index < 0) {
        throw invalid(`Cannot partition by ${shown}: no such column in schema ${this.schema.schemaId}`, { column: shown });
      }
      found = fields[index] as NestedField;
      if (i < names.length - 1) {
        if (found.type.kind !== 'struct') {
          const why = `${found.name} is a ${found.type.kind}, not a struct (sources cannot be inside lists or maps)`;
          throw invalid(`Cannot partition by ${shown}: ${why}`, { column: shown });
        }
        fields = found.type.fields;
      }
    }
    if (found === undefined) throw invalid('Cannot partition by an empty column path');
    const path = findField(this.schema, found.id)?.path.join('.') ?? shown;
    return { field: found, path };
  }
}

/** Java's default names: identity → the column, others → column + `_bucket_N`, `_trunc_W`, `_year`, … */
function defaultName(column: string, transform: Transform): string {
  switch (transform.kind) {
    case 'identity':
      return column;
    case 'bucket':
      return `${column}_bucket_${transform.numBuckets}`;
    case 'truncate':
      return `${column}_trunc_${transform.width}`;
    case 'void':
      return `${column}_null`;
    default:
      return `${column}_${transform.kind}`;
  }
}

function canonicalTransform(text: string): string {
  return transformToString(parseTransform(text));
}

/** The checks Java's PartitionSpec builder makes on a whole spec. */
function validate(fields: readonly PartitionField[], schema: Schema): void {
  const names = new Set<string>();
  const columnNames = new Map(allFields(schema).filter((f) => !f.inRepeated).map((f) => [f.path.join('.'), f.field.id]));
  const bySourceTransform = new Set<string>();
  const timeSources = new Set<number>();
  for (const field of fields) {
    const context = { partitionField: field.name };
    if (names.has(field.name)) throw invalid(`Partition spec would have two fields named ${field.name}`, context);
    names.add(field.name);
    const transform = canonicalTransform(field.transform);
    if (transform === 'void') continue;
    const columnId = columnNames.get(field.name);
    if (columnId !== undefined && !(transform === 'identity' && columnId === field.sourceId)) {
      throw invalid(`Partition field name ${field.name} is a column of the schema; only an identity field of that column may use it`, context);
    }
    const key = `${field.sourceId}:${transform}`;
    if (bySourceTransform.has(key)) throw invalid(`Partition spec would have ${transform} of source ${field.sourceId} twice`, context);
    bySourceTransform.add(key);
    if (TIME_TRANSFORMS.has(transform)) {
      if (timeSources.has(field.sourceId)) {
        throw invalid(`Partition spec would have two time transforms of source ${field.sourceId} (redundant: ${field.name})`, context);
      }
      timeSources.add(field.sourceId);
    }
  }
}

/** The commit that applies `changes` (in order) to the table's default spec. */
export function evolvePartitionSpec(metadata: TableMetadata, changes: readonly PartitionSpecChange[]): PartitionSpecUpdate {
  const evolver = new SpecEvolver(metadata);
  for (const change of changes) {
    if (change.action === 'add-field') evolver.add(change.source, change.transform, change.name);
    else if (change.action === 'remove-field') evolver.remove(change.name);
    else evolver.rename(change.name, change.newName);
  }
  const fields = evolver.build();
  const current = defaultSpec(metadata);
  if (sameFields(current.fields, fields)) return { spec: current, updates: [], requirements: [] };
  const existing = metadata.partitionSpecs.find((s) => sameFields(s.fields, fields));
  const specId = existing?.specId ?? Math.max(...metadata.partitionSpecs.map((s) => s.specId)) + 1;
  const spec: PartitionSpec = { specId, fields };
  return {
    spec,
    updates: [
      { action: 'add-spec', spec },
      { action: 'set-default-spec', specId: LAST_ADDED },
    ],
    requirements: [
      { type: 'assert-default-spec-id', defaultSpecId: metadata.defaultSpecId },
      { type: 'assert-last-assigned-partition-id', lastAssignedPartitionId: metadata.lastPartitionId },
    ],
  };
}

function sameFields(a: readonly PartitionField[], b: readonly PartitionField[]): boolean {
  return (
    a.length === b.length &&
    a.every((f, i) => {
      const g = b[i] as PartitionField;
      return f.sourceId === g.sourceId && f.fieldId === g.fieldId && f.name === g.name && f.transform === g.transform;
    })
  );
}
