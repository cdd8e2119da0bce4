/**
 * A pipeline's `partitioned_by` against its target table: the spec a new table is created with,
 * and for an existing table the partition spec evolution (add/remove fields, Java's default
 * names) that makes its default spec match. Old data files keep the spec they were written with.
 */
import { evolvePartitionSpec, type PartitionSpecChange, type PartitionSpecUpdate } from '../iceberg/partition-spec-evolution.js';
import { currentSchema, defaultSpec } from '../iceberg/snapshot-ancestry.js';
import type { PartitionSpec, TableMetadata } from '../iceberg/table-metadata.js';
import { parseTransform, transformToString } from '../iceberg/transforms/transform.js';
import type { PartitionField as PartitionTerm } from '../pipeline/ir/partition-field.js';

/** `bucket(16, id)` → `bucket[16]`: the transform as Iceberg metadata writes it. */
export function icebergTransform(term: PartitionTerm): string {
  return term.parameter === undefined ? term.transform : `${term.transform}[${term.parameter}]`;
}

/** The spec a new table gets (spec id 0); `staged` is its unpartitioned staged metadata. */
export function newTablePartitionSpec(staged: TableMetadata, terms: readonly PartitionTerm[]): PartitionSpec {
  const { spec } = evolvePartitionSpec(staged, terms.map(addField));
  return { specId: 0, fields: spec.fields };
}

/** The evolution to the wanted spec, or undefined when the table's default spec has the same fields. */
export function partitionSpecEvolution(metadata: TableMetadata, terms: readonly PartitionTerm[]): PartitionSpecUpdate | undefined {
  const schema = currentSchema(metadata);
  const keyOf = (sourceId: number | undefined, transform: string): string => `${sourceId ?? '?'}:${transformToString(parseTransform(transform))}`;
  const wanted = terms.map((term) => keyOf(schema.fields.find((field) => field.name === term.column)?.id, icebergTransform(term)));
  const current = defaultSpec(metadata).fields;
  const currentKeys = current.map((field) => keyOf(field.sourceId, field.transform));
  // Compared as sets: added fields go after kept ones, so the order may differ from the terms'.
  if (wanted.length === currentKeys.length && wanted.every((key) => currentKeys.includes(key))) return undefined;
  const changes: PartitionSpecChange[] = [
    ...current.filter((_, i) => !wanted.includes(currentKeys[i]!)).map((field) => ({ action: 'remove-field' as const, name: field.name })),
    ...terms.filter((_, i) => !currentKeys.includes(wanted[i]!)).map(addField),
  ];
  return evolvePartitionSpec(metadata, changes);
}

function addField(term: PartitionTerm): PartitionSpecChange {
  return { action: 'add-field', source: term.column, transform: icebergTransform(term) };
}
