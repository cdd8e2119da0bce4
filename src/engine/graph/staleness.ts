/**
 * Whether a materialized view's last result still holds: its table's current snapshot was
 * committed by the same flow, with the same definition hash, from the same upstream snapshots and
 * source files. Otherwise the flow is stale, with the first reason found.
 */
import { snapshotForRef } from '../../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { MAIN_BRANCH } from '../../iceberg/table-metadata.js';
import { parseJson } from '../../iceberg/json.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import { DEFINITION_HASH_PROPERTY, FLOW_PROPERTY, UPSTREAM_PROPERTY } from './flow-summary.js';
import { describeUpstreamChange, type UpstreamRecord } from './upstream-state.js';

export type Staleness = { readonly stale: false } | { readonly stale: true; readonly reason: string };

export function stalenessOf(table: TableMetadata | undefined, flow: Flow, definitionHash: string, upstream: UpstreamRecord): Staleness {
  const snapshot = table === undefined ? undefined : snapshotForRef(table, MAIN_BRANCH);
  if (snapshot === undefined) return { stale: true, reason: 'never run' };
  const summary = snapshot.summary;
  if (summary[FLOW_PROPERTY] !== flow.name) {
    const writer = summary[FLOW_PROPERTY];
    return { stale: true, reason: writer === undefined ? 'never run by this pipeline' : `last written by flow ${writer}` };
  }
  if (summary[DEFINITION_HASH_PROPERTY] !== definitionHash) return { stale: true, reason: 'definition changed' };
  const recorded = parseRecord(summary[UPSTREAM_PROPERTY]);
  if (recorded === undefined) return { stale: true, reason: 'no upstream record' };
  for (const name of new Set([...Object.keys(upstream), ...Object.keys(recorded)])) {
    if (recorded[name] !== upstream[name]) return { stale: true, reason: `upstream ${name} changed (${describeUpstreamChange(recorded[name], upstream[name])})` };
  }
  return { stale: false };
}

/** True when any snapshot of the table was committed by this flow (a `once` flow has run). */
export function flowHasRun(table: TableMetadata | undefined, flow: Flow): boolean {
  return (table?.snapshots ?? []).some((snapshot) => snapshot.summary[FLOW_PROPERTY] === flow.name);
}

function parseRecord(text: string | undefined): UpstreamRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const value = parseJson(text, UPSTREAM_PROPERTY) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, String(inner)]));
  } catch {
    return undefined;
  }
}
