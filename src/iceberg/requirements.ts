/**
 * Commit requirements (REST `type`s, spec §7.5). Each validates itself against the current
 * metadata (undefined when the table does not exist) and throws CommitConflictError naming
 * what differed.
 */
import { CommitConflictError } from '../errors.js';
import type { TableMetadata } from './table-metadata.js';

export type TableRequirement =
  | { readonly type: 'assert-create' }
  | { readonly type: 'assert-table-uuid'; readonly uuid: string }
  | { readonly type: 'assert-ref-snapshot-id'; readonly ref: string; readonly snapshotId: bigint | null }
  | { readonly type: 'assert-last-assigned-field-id'; readonly lastAssignedFieldId: number }
  | { readonly type: 'assert-current-schema-id'; readonly currentSchemaId: number }
  | { readonly type: 'assert-last-assigned-partition-id'; readonly lastAssignedPartitionId: number }
  | { readonly type: 'assert-default-spec-id'; readonly defaultSpecId: number }
  | { readonly type: 'assert-default-sort-order-id'; readonly defaultSortOrderId: number };

export function validateRequirement(requirement: TableRequirement, current: TableMetadata | undefined): void {
  if (requirement.type === 'assert-create') {
    if (current !== undefined) conflict(requirement.type, 'the table already exists');
    return;
  }
  if (current === undefined) conflict(requirement.type, 'the table does not exist');
  switch (requirement.type) {
    case 'assert-table-uuid':
      expectEqual(requirement.type, 'table uuid', requirement.uuid, current.tableUuid);
      return;
    case 'assert-ref-snapshot-id': {
      const actual = current.refs.get(requirement.ref)?.snapshotId ?? null;
      expectEqual(requirement.type, `snapshot id of ref "${requirement.ref}"`, requirement.snapshotId, actual);
      return;
    }
    case 'assert-last-assigned-field-id':
      expectEqual(requirement.type, 'last assigned field id', requirement.lastAssignedFieldId, current.lastColumnId);
      return;
    case 'assert-current-schema-id':
      expectEqual(requirement.type, 'current schema id', requirement.currentSchemaId, current.currentSchemaId);
      return;
    case 'assert-last-assigned-partition-id':
      expectEqual(requirement.type, 'last assigned partition id', requirement.lastAssignedPartitionId, current.lastPartitionId);
      return;
    case 'assert-default-spec-id':
      expectEqual(requirement.type, 'default spec id', requirement.defaultSpecId, current.defaultSpecId);
      return;
    case 'assert-default-sort-order-id':
      expectEqual(requirement.type, 'default sort order id', requirement.defaultSortOrderId, current.defaultSortOrderId);
      return;
  }
}

export function validateRequirements(requirements: readonly TableRequirement[], current: TableMetadata | undefined): void {
  for (const requirement of requirements) validateRequirement(requirement, current);
}

function expectEqual<T>(type: string, what: string, expected: T, actual: T): void {
  if (expected !== actual) conflict(type, `expected ${what} ${String(expected)}, found ${String(actual)}`);
}

function conflict(type: string, detail: string): never {
  throw new CommitConflictError(`Requirement ${type} failed: ${detail}`, { context: { requirement: type } });
}
