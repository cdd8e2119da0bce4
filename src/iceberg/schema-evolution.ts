/**
 * Schema evolution on write: from a table's current schema and the columns a writer produces
 * (matched by name, exact first, else one case-insensitive match), the evolved fields. Allowed:
 * new columns (always optional, top level or inside structs, lists and map values, appended at
 * the end of their struct with fresh ids from last-column-id), type widening int→long,
 * float→double and decimal(P,S)→decimal(P',S) with P' > P, optional table columns the
 * writer leaves out (written as nulls), and top-level columns with a v3 write-default the writer
 * leaves out, required or not (written with their default). Everything else is one SchemaMismatchError listing every
 * problem; its context names the table and the first column path, from-type and to-type.
 * Field ids, names and identifier-field-ids of existing columns never change here.
 */
import { SchemaMismatchError } from '../errors.js';
import { hasDefault } from './default-values.js';
import { assignFreshIds, nanosTakes, typeText, type UnassignedField, type UnassignedType } from './schema.js';
import type { IcebergType, NestedField, PrimitiveType } from './types.js';
import { isPrimitive } from './types.js';

export type SchemaEvolutionChange =
  | { readonly kind: 'add-column'; readonly path: readonly string[]; readonly fieldId: number; readonly type: IcebergType }
  | {
      readonly kind: 'widen-type';
      readonly path: readonly string[];
      readonly fieldId: number;
      readonly from: PrimitiveType;
      readonly to: PrimitiveType;
    };

/** One top-level column of the evolved schema and the writer's column feeding it (none: nulls). */
export interface EvolvedColumn {
  readonly field: NestedField;
  readonly sourceName?: string;
}

export interface SchemaEvolution {
  /** The evolved top-level fields: existing ones first (same order), new ones appended. */
  readonly fields: readonly NestedField[];
  readonly lastColumnId: number;
  readonly changes: readonly SchemaEvolutionChange[];
  /** Paths of optional table columns the writer does not produce (they are written as nulls). */
  readonly absentColumns: readonly string[];
  readonly columns: readonly EvolvedColumn[];
}

export interface SchemaEvolutionRequest {
  /** The table's name, for errors. */
  readonly table: string;
  readonly fields: readonly NestedField[];
  readonly lastColumnId: number;
  readonly incoming: readonly UnassignedField[];
}

interface Problem {
  readonly path: string;
  readonly from: string;
  readonly to: string;
  readonly why: string;
}

/** Index of the item named `name`: the exact name, else the only case-insensitive match, else -1. */
export function matchByName<T extends { readonly name: string }>(items: readonly T[], name: string, taken: ReadonlySet<number> = new Set()): number {
  const exact = items.findIndex((item, index) => item.name === name && !taken.has(index));
  if (exact >= 0) return exact;
  const lower = name.toLowerCase();
  const loose = items.flatMap((item, index) => (item.name.toLowerCase() === lower && !taken.has(index) ? [index] : []));
  return loose.length === 1 ? (loose[0] as number) : -1;
}

/** How a table primitive relates to an incoming one: equal, incoming narrower (cast), wider (widen), or neither. */
function comparePrimitives(table: PrimitiveType, incoming: PrimitiveType): 'same' | 'cast' | 'widen' | 'no' {
  if (table.kind === 'decimal' || incoming.kind === 'decimal') {
    if (table.kind !== 'decimal' || incoming.kind !== 'decimal' || table.scale !== incoming.scale) return 'no';
    if (table.precision === incoming.precision) return 'same';
    return incoming.precision < table.precision ? 'cast' : 'widen';
  }
  if (table.kind === 'fixed' || incoming.kind === 'fixed') {
    return table.kind === 'fixed' && incoming.kind === 'fixed' && table.length === incoming.length ? 'same' : 'no';
  }
  if (table.kind === incoming.kind) return 'same';
  if (table.kind === 'long' && incoming.kind === 'int') return 'cast';
  if (table.kind === 'double' && incoming.kind === 'float') return 'cast';
  if (nanosTakes(table, incoming)) return 'cast';
  if (table.kind === 'int' && incoming.kind === 'long') return 'widen';
  if (table.kind === 'float' && incoming.kind === 'double') return 'widen';
  return 'no';
}

function isNested(t: IcebergType | UnassignedType): t is Exclude<UnassignedType, PrimitiveType> {
  return t.kind === 'struct' || t.kind === 'list' || t.kind === 'map';
}

class Evolver {
  readonly problems: Problem[] = [];
  readonly changes: SchemaEvolutionChange[] = [];
  readonly absent: string[] = [];

  constructor(private lastColumnId: number) {}

  get lastId(): number {
    return this.lastColumnId;
  }

  /** The evolved struct fields and, per evolved field, the incoming field feeding it. */
  struct(
    table: readonly NestedField[],
    incoming: readonly UnassignedField[],
    path: readonly string[],
    inMapKey: boolean,
  ): { fields: NestedField[]; sources: (UnassignedField | undefined)[] } {
    const used = new Set<number>();
    const fields: NestedField[] = [];
    const sources: (UnassignedField | undefined)[] = [];
    for (const field of table) {
      const fieldPath = [...path, field.name];
      const index = matchByName(incoming, field.name, used);
      if (index < 0) {
        const writeDefault = hasDefault(field, 'write');
        if (writeDefault && path.length > 0) {
          this.problem(fieldPath, typeText(field.type), 'absent', 'has a write-default inside a struct, which Thund cannot apply yet, and is missing from the output');
        } else if (field.required && !writeDefault) {
          this.problem(fieldPath, typeText(field.type), 'absent', 'is required in the table but missing from the output');
        } else if (!writeDefault) this.absent.push(fieldPath.join('.'));
        fields.push(field);
        sources.push(undefined);
        continue;
      }
      used.add(index);
      const source = incoming[index] as UnassignedField;
      if (field.required && !source.required) {
        this.problem(fieldPath, typeText(field.type), typeText(source.type), 'is required in the table but optional in the output');
      }
      fields.push({ ...field, type: this.type(field.type, source.type, fieldPath, field.id, inMapKey) });
      sources.push(source);
    }
    incoming.forEach((source, index) => {
      if (used.has(index)) return;
      const fieldPath = [...path, source.name];
      if (inMapKey) {
        this.problem(fieldPath, 'absent', typeText(source.type), 'would add a field to a map key, which changes key equality');
        return;
      }
      const added = assignFreshIds([{ ...source, required: false }], this.lastColumnId);
      this.lastColumnId = added.lastColumnId;
      const field = added.fields[0] as NestedField;
      this.changes.push({ kind: 'add-column', path: fieldPath, fieldId: field.id, type: field.type });
      fields.push(field);
      sources.push(source);
    });
    return { fields, sources };
  }

  private type(table: IcebergType, incoming: UnassignedType, path: readonly string[], fieldId: number, inMapKey: boolean): IcebergType {
    if (isPrimitive(table) && !isNested(incoming)) {
      const verdict = comparePrimitives(table, incoming);
      if (verdict === 'no') this.problem(path, typeText(table), typeText(incoming), 'cannot change type');
      if (verdict !== 'widen') return table;
      if (inMapKey) {
        this.problem(path, typeText(table), typeText(incoming), 'is (inside) a map key, whose type cannot change');
        return table;
      }
      this.changes.push({ kind: 'widen-type', path, fieldId, from: table, to: incoming });
      return incoming;
    }
    if (table.kind === 'struct' && incoming.kind === 'struct') {
      return { kind: 'struct', fields: this.struct(table.fields, incoming.fields, path, inMapKey).fields };
    }
    if (table.kind === 'list' && incoming.kind === 'list') {
      const elementPath = [...path, 'element'];
      if (table.elementRequired && !incoming.elementRequired) {
        this.problem(elementPath, typeText(table.element), typeText(incoming.element), 'is required in the table but optional in the output');
      }
      return { ...table, element: this.type(table.element, incoming.element, elementPath, table.elementId, inMapKey) };
    }
    if (table.kind === 'map' && incoming.kind === 'map') {
      const valuePath = [...path, 'value'];
      if (table.valueRequired && !incoming.valueRequired) {
        this.problem(valuePath, typeText(table.value), typeText(incoming.value), 'is required in the table but optional in the output');
      }
      return {
        ...table,
        key: this.type(table.key, incoming.key, [...path, 'key'], table.keyId, true),
        value: this.type(table.value, incoming.value, valuePath, table.valueId, inMapKey),
      };
    }
    this.problem(path, typeText(table), typeText(incoming), 'cannot change type');
    return table;
  }

  private problem(path: readonly string[], from: string, to: string, why: string): void {
    this.problems.push({ path: path.join('.'), from, to, why });
  }
}

/**
 * The schema the table needs so the incoming columns can be written into it. `changes` is empty
 * when the current fields already take the output (possibly with casts and absent columns).
 */
export function evolveSchema(request: SchemaEvolutionRequest): SchemaEvolution {
  const evolver = new Evolver(request.lastColumnId);
  const { fields, sources } = evolver.struct(request.fields, request.incoming, [], false);
  if (evolver.problems.length > 0) {
    const first = evolver.problems[0] as Problem;
    const list = evolver.problems.map((p) => `column "${p.path}" ${p.why} (table: ${p.from}, output: ${p.to})`);
    throw new SchemaMismatchError(`Table ${request.table} cannot take the output's schema: ${list.join('; ')}`, {
      context: { table: request.table, column: first.path, fromType: first.from, toType: first.to, problems: list.length },
    });
  }
  return {
    fields,
    lastColumnId: evolver.lastId,
    changes: evolver.changes,
    absentColumns: evolver.absent,
    columns: fields.map((field, index) => {
      const source = sources[index];
      return source === undefined ? { field } : { field, sourceName: source.name };
    }),
  };
}
