/**
 * REST wire form (spec §7.5) of commit updates (`action`) and requirements (`type`), both
 * directions, plus the commit request body. Snapshot, partition spec, sort order and ref objects
 * reuse the table-metadata converters so the two wire forms never drift apart.
 */
import { z } from 'zod';
import { IcebergFormatError } from '../errors.js';
import { parseJson, stringifyJson } from './json.js';
import {
  formatPath,
  partitionSpecToJson,
  readPartitionSpec,
  readSnapshot,
  readSortOrder,
  refToJson,
  snapshotToJson,
  sortOrderToJson,
} from './metadata-json.js';
import { int, long, partitionSpecWire, snapshotRefWire, snapshotV1Wire, sortOrderWire } from './metadata-wire.js';
import type { TableRequirement } from './requirements.js';
import { highestFieldId } from './schema.js';
import type { SnapshotRef } from './table-metadata.js';
import { parseSchema, schemaToJson } from './type-json.js';
import type { TableUpdate } from './updates.js';

export interface TableIdentifierWire {
  readonly namespace: readonly string[];
  readonly name: string;
}

export interface CommitRequest {
  readonly identifier?: TableIdentifierWire;
  readonly requirements: readonly TableRequirement[];
  readonly updates: readonly TableUpdate[];
}

// ---------------------------------------------------------------------------------------------
// Domain → wire

export function updateToWire(u: TableUpdate): Record<string, unknown> {
  switch (u.action) {
    case 'assign-uuid':
      return { action: u.action, uuid: u.uuid };
    case 'upgrade-format-version':
      return { action: u.action, 'format-version': u.formatVersion };
    case 'add-schema':
      // `last-column-id` is deprecated, but Nessie and servers on older Iceberg fail without it.
      return { action: u.action, schema: schemaToJson(u.schema), 'last-column-id': u.lastColumnId ?? highestFieldId(u.schema) };
    case 'set-current-schema':
      return { action: u.action, 'schema-id': u.schemaId };
    case 'add-spec':
      return { action: u.action, spec: partitionSpecToJson(u.spec) };
    case 'set-default-spec':
      return { action: u.action, 'spec-id': u.specId };
    case 'add-sort-order':
      return { action: u.action, 'sort-order': sortOrderToJson(u.sortOrder) };
    case 'set-default-sort-order':
      return { action: u.action, 'sort-order-id': u.sortOrderId };
    case 'add-snapshot':
      return { action: u.action, snapshot: compact(snapshotToJson(u.snapshot)) };
    case 'set-snapshot-ref': {
      const { action, refName, ...ref } = u;
      const { 'snapshot-id': snapshotId, type, ...retention } = refToJson(ref);
      return compact({ action, 'ref-name': refName, type, 'snapshot-id': snapshotId, ...retention });
    }
    case 'remove-snapshots':
      return { action: u.action, 'snapshot-ids': [...u.snapshotIds] };
    case 'remove-snapshot-ref':
      return { action: u.action, 'ref-name': u.refName };
    case 'set-location':
      return { action: u.action, location: u.location };
    case 'set-properties':
      return { action: u.action, updates: { ...u.updates } };
    case 'remove-properties':
      return { action: u.action, removals: [...u.removals] };
  }
}

export function requirementToWire(r: TableRequirement): Record<string, unknown> {
  switch (r.type) {
    case 'assert-create':
      return { type: r.type };
    case 'assert-table-uuid':
      return { type: r.type, uuid: r.uuid };
    case 'assert-ref-snapshot-id':
      // `snapshot-id` must be present even when null (null = the ref must not exist).
      return { type: r.type, ref: r.ref, 'snapshot-id': r.snapshotId };
    case 'assert-last-assigned-field-id':
      return { type: r.type, 'last-assigned-field-id': r.lastAssignedFieldId };
    case 'assert-current-schema-id':
      return { type: r.type, 'current-schema-id': r.currentSchemaId };
    case 'assert-last-assigned-partition-id':
      return { type: r.type, 'last-assigned-partition-id': r.lastAssignedPartitionId };
    case 'assert-default-spec-id':
      return { type: r.type, 'default-spec-id': r.defaultSpecId };
    case 'assert-default-sort-order-id':
      return { type: r.type, 'default-sort-order-id': r.defaultSortOrderId };
  }
}

/** The commit body (§7.5) as JSON text; int64 values are written as exact JSON integers. */
export function commitRequestToJson(request: CommitRequest): string {
  const body: Record<string, unknown> = {};
  if (request.identifier !== undefined) {
    body['identifier'] = { namespace: [...request.identifier.namespace], name: request.identifier.name };
  }
  body['requirements'] = request.requirements.map(requirementToWire);
  body['updates'] = request.updates.map(updateToWire);
  return stringifyJson(body);
}

// ---------------------------------------------------------------------------------------------
// Wire → domain

const updateWire = {
  'assign-uuid': z.object({ uuid: z.string() }),
  'upgrade-format-version': z.object({ 'format-version': z.union([z.literal(1), z.literal(2), z.literal(3)]) }),
  'add-schema': z.object({ schema: z.unknown(), 'last-column-id': int.optional() }),
  'set-current-schema': z.object({ 'schema-id': int }),
  'add-spec': z.object({ spec: partitionSpecWire }),
  'set-default-spec': z.object({ 'spec-id': int }),
  'add-sort-order': z.object({ 'sort-order': sortOrderWire }),
  'set-default-sort-order': z.object({ 'sort-order-id': int }),
  'add-snapshot': z.object({ snapshot: snapshotV1Wire }),
  'set-snapshot-ref': snapshotRefWire.extend({ 'ref-name': z.string() }),
  'remove-snapshots': z.object({ 'snapshot-ids': z.array(long) }),
  'remove-snapshot-ref': z.object({ 'ref-name': z.string() }),
  'set-location': z.object({ location: z.string() }),
  'set-properties': z.object({ updates: z.record(z.string(), z.string()) }),
  'remove-properties': z.object({ removals: z.array(z.string()) }),
} satisfies Record<TableUpdate['action'], z.ZodType>;

const requirementWire = {
  'assert-create': z.object({}),
  'assert-table-uuid': z.object({ uuid: z.string() }),
  'assert-ref-snapshot-id': z.object({ ref: z.string(), 'snapshot-id': long.nullable() }),
  'assert-last-assigned-field-id': z.object({ 'last-assigned-field-id': int }),
  'assert-current-schema-id': z.object({ 'current-schema-id': int }),
  'assert-last-assigned-partition-id': z.object({ 'last-assigned-partition-id': int }),
  'assert-default-spec-id': z.object({ 'default-spec-id': int }),
  'assert-default-sort-order-id': z.object({ 'default-sort-order-id': int }),
} satisfies Record<TableRequirement['type'], z.ZodType>;

/** Parse one update object; `path` names it in errors (e.g. `updates[3]`). */
export function updateFromWire(json: unknown, path: string): TableUpdate {
  const action = discriminator(json, 'action', updateWire, path, 'update');
  switch (action) {
    case 'assign-uuid':
      return { action, uuid: parse(updateWire[action], json, path).uuid };
    case 'upgrade-format-version':
      return { action, formatVersion: parse(updateWire[action], json, path)['format-version'] };
    case 'add-schema': {
      const wire = parse(updateWire[action], json, path);
      const schema = parseSchema(wire.schema, `${path}.schema`);
      return { action, schema, ...(wire['last-column-id'] === undefined ? {} : { lastColumnId: wire['last-column-id'] }) };
    }
    case 'set-current-schema':
      return { action, schemaId: parse(updateWire[action], json, path)['schema-id'] };
    case 'add-spec':
      return { action, spec: readPartitionSpec(parse(updateWire[action], json, path).spec, 'commit update', `${path}.spec`) };
    case 'set-default-spec':
      return { action, specId: parse(updateWire[action], json, path)['spec-id'] };
    case 'add-sort-order': {
      const w = parse(updateWire[action], json, path)['sort-order'];
      return { action, sortOrder: readSortOrder(w, 'commit update', `${path}.sort-order`) };
    }
    case 'set-default-sort-order':
      return { action, sortOrderId: parse(updateWire[action], json, path)['sort-order-id'] };
    case 'add-snapshot': {
      const w = parse(updateWire[action], json, path).snapshot;
      return { action, snapshot: readSnapshot(w, 'commit update', `${path}.snapshot`) };
    }
    case 'set-snapshot-ref': {
      const w = parse(updateWire[action], json, path);
      const ref: SnapshotRef = {
        snapshotId: w['snapshot-id'],
        type: w.type,
        ...present('minSnapshotsToKeep', w['min-snapshots-to-keep']),
        ...present('maxSnapshotAgeMs', w['max-snapshot-age-ms']),
        ...present('maxRefAgeMs', w['max-ref-age-ms']),
      };
      return { action, refName: w['ref-name'], ...ref };
    }
    case 'remove-snapshots':
      return { action, snapshotIds: parse(updateWire[action], json, path)['snapshot-ids'] };
    case 'remove-snapshot-ref':
      return { action, refName: parse(updateWire[action], json, path)['ref-name'] };
    case 'set-location':
      return { action, location: parse(updateWire[action], json, path).location };
    case 'set-properties':
      return { action, updates: parse(updateWire[action], json, path).updates };
    case 'remove-properties':
      return { action, removals: parse(updateWire[action], json, path).removals };
  }
}

/** Parse one requirement object; `path` names it in errors (e.g. `requirements[0]`). */
export function requirementFromWire(json: unknown, path: string): TableRequirement {
  const type = discriminator(json, 'type', requirementWire, path, 'requirement');
  switch (type) {
    case 'assert-create':
      parse(requirementWire[type], json, path);
      return { type };
    case 'assert-table-uuid':
      return { type, uuid: parse(requirementWire[type], json, path).uuid };
    case 'assert-ref-snapshot-id': {
      const w = parse(requirementWire[type], json, path);
      if (!('snapshot-id' in (json as Record<string, unknown>))) {
        throw invalid(`${path}.snapshot-id`, 'required field is missing (use null for "the ref must not exist")');
      }
      return { type, ref: w.ref, snapshotId: w['snapshot-id'] };
    }
    case 'assert-last-assigned-field-id':
      return { type, lastAssignedFieldId: parse(requirementWire[type], json, path)['last-assigned-field-id'] };
    case 'assert-current-schema-id':
      return { type, currentSchemaId: parse(requirementWire[type], json, path)['current-schema-id'] };
    case 'assert-last-assigned-partition-id':
      return { type, lastAssignedPartitionId: parse(requirementWire[type], json, path)['last-assigned-partition-id'] };
    case 'assert-default-spec-id':
      return { type, defaultSpecId: parse(requirementWire[type], json, path)['default-spec-id'] };
    case 'assert-default-sort-order-id':
      return { type, defaultSortOrderId: parse(requirementWire[type], json, path)['default-sort-order-id'] };
  }
}

const commitRequestWire = z.object({
  identifier: z.object({ namespace: z.array(z.string()), name: z.string() }).optional(),
  requirements: z.array(z.unknown()),
  updates: z.array(z.unknown()),
});

/** Parse a commit body (the server side of §7.5, or a recorded request in tests). */
export function commitRequestFromJson(text: string, source: string): CommitRequest {
  const w = parse(commitRequestWire, parseJson(text, source), '$');
  return {
    ...(w.identifier === undefined ? {} : { identifier: w.identifier }),
    requirements: w.requirements.map((r, i) => requirementFromWire(r, `requirements[${i}]`)),
    updates: w.updates.map((u, i) => updateFromWire(u, `updates[${i}]`)),
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

function discriminator<K extends string>(
  json: unknown,
  key: string,
  known: Record<K, unknown>,
  path: string,
  what: string,
): K {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalid(path, `a ${what} must be a JSON object`);
  }
  const value = (json as Record<string, unknown>)[key];
  if (typeof value !== 'string') throw invalid(`${path}.${key}`, `required string field is missing`);
  if (!Object.hasOwn(known, value)) {
    throw new IcebergFormatError(`Invalid commit ${what} at ${path}.${key}: unknown ${key} "${value}"`, {
      context: { field: `${path}.${key}`, [key]: value },
    });
  }
  return value as K;
}

function parse<S extends z.ZodType>(schema: S, json: unknown, path: string): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const sub = issue === undefined ? '$' : formatPath(issue.path);
  const at = sub === '$' ? path : path === '$' ? sub : sub.startsWith('[') ? `${path}${sub}` : `${path}.${sub}`;
  const message = issue?.message ?? 'invalid';
  return failAt(at, message.endsWith('received undefined') ? 'required field is missing' : message);
}

function failAt(path: string, detail: string): never {
  throw invalid(path, detail);
}

function invalid(path: string, detail: string): IcebergFormatError {
  return new IcebergFormatError(`Invalid commit request at ${path}: ${detail}`, { context: { field: path } });
}

/** Drops undefined members so the wire object holds exactly the fields that are sent. */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function present<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === undefined || value === null ? {} : ({ [key]: value } as { [P in K]?: V });
}
