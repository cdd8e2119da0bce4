/**
 * New tables on a REST server that refuses staged creation (`stage-create: true` answered with
 * 400/405/406/501, "not implemented"): the table is created plainly and empty at stage time, and
 * the caller's first commit, written for a staged create (`assert-create` + the create updates +
 * the snapshot), is sent as a commit to that empty table instead: `assert-table-uuid` and
 * "main has no snapshot yet", the create updates the server already applied left out. So the
 * snapshot lands whole or not at all, as with a staged create.
 *
 * When that commit fails, the table stays, empty. It is not dropped: a REST drop is unconditional,
 * so it could remove a table another writer has committed to meanwhile, or (after an unknown
 * outcome) one holding our own snapshot; an empty table is a valid state the next run appends to.
 */
import type { PartitionSpec, TableMetadata } from '../../src/iceberg/table-metadata.js';
import { ThundError } from '../../src/errors.js';
import { stringifyJson } from '../../src/iceberg/json.js';
import { updatesForCreate } from '../../src/iceberg/metadata-builder.js';
import type { TableRequirement } from '../../src/iceberg/requirements.js';
import { defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH } from '../../src/iceberg/table-metadata.js';
import { updateToWire } from '../../src/iceberg/update-json.js';
import type { TableUpdate } from '../../src/iceberg/updates.js';
import type { TableIdentifier } from '../catalog.js';

/** Statuses with which servers say they do not do staged creation. */
const REFUSALS = new Set([400, 405, 406, 501]);

/** True when a stage-create failed because the server does not stage (not because of the table). */
export function refusesStagedCreate(error: unknown): boolean {
  if (!(error instanceof ThundError)) return false;
  const status = error.context['status'];
  return typeof status === 'number' && REFUSALS.has(status);
}

/** A commit request: requirements and updates. */
export interface CommitParts {
  readonly requirements: readonly TableRequirement[];
  readonly updates: readonly TableUpdate[];
}

export class ProvisionalTables {
  /** Empty tables created in place of a staged create, by identifier, as the server last described them. */
  private readonly tables = new Map<string, TableMetadata>();

  get(identifier: TableIdentifier): TableMetadata | undefined {
    return this.tables.get(key(identifier));
  }

  remember(identifier: TableIdentifier, metadata: TableMetadata): void {
    this.tables.set(key(identifier), metadata);
  }

  forget(identifier: TableIdentifier): void {
    this.tables.delete(key(identifier));
  }

  /**
   * The commit that puts `spec` in place on the empty table (a second stage-create with the
   * partition spec), or undefined when it is the table's default spec already.
   */
  static respec(metadata: TableMetadata, spec: PartitionSpec | undefined): CommitParts | undefined {
    if (spec === undefined || sameFields(defaultSpec(metadata), spec)) return undefined;
    const specId = Math.max(...metadata.partitionSpecs.map((s) => s.specId)) + 1;
    return {
      requirements: [...emptyTable(metadata), { type: 'assert-default-spec-id', defaultSpecId: metadata.defaultSpecId }],
      updates: [
        { action: 'add-spec', spec: { ...spec, specId } },
        { action: 'set-default-spec', specId: -1 },
      ],
    };
  }

  /** A staged-create commit rewritten for the empty table `metadata`; other commits unchanged. */
  static asFirstCommit(metadata: TableMetadata, commit: CommitParts): CommitParts {
    if (!commit.requirements.some((r) => r.type === 'assert-create')) return commit;
    // The create updates describe what the server already has; any other update is kept.
    const applied = new Set(updatesForCreate(metadata).map(wire));
    return {
      requirements: [...emptyTable(metadata), ...commit.requirements.filter((r) => r.type !== 'assert-create')],
      updates: commit.updates.filter((u) => !applied.has(wire(u))),
    };
  }
}

/** The table is still the one created, and main has no snapshot. */
function emptyTable(metadata: TableMetadata): TableRequirement[] {
  return [
    { type: 'assert-table-uuid', uuid: metadata.tableUuid },
    { type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, snapshotId: null },
  ];
}

function sameFields(a: PartitionSpec, b: PartitionSpec): boolean {
  const fields = (spec: PartitionSpec) => spec.fields.map((f) => [f.sourceId, f.transform, f.name]);
  return JSON.stringify(fields(a)) === JSON.stringify(fields(b));
}

function wire(update: TableUpdate): string {
  return stringifyJson(updateToWire(update));
}

function key(identifier: TableIdentifier): string {
  return JSON.stringify([identifier.namespace, identifier.name]);
}
