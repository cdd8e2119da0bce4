/**
 * The hash of what a flow computes: its kind, SQL text, output mode, the target's table settings
 * and expectations (and CDC options). A flow whose hash differs from the one its target's snapshot
 * records has a new definition, so its last result is stale.
 */
import { createHash } from 'node:crypto';
import type { TableDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';

export function flowDefinitionHash(flow: Flow, target: TableDataset): string {
  const { table } = target;
  const definition = {
    kind: flow.kind,
    sql: flow.query.text,
    outputMode: flow.outputMode,
    streaming: flow.streaming,
    changes: flow.kind === 'apply-changes' ? flow.changes : null,
    target: {
      identifier: [...table.identifier.namespace, table.identifier.name],
      partitioning: table.partitioning.map((field) => field.term),
      properties: Object.entries(table.properties).sort(([a], [b]) => a.localeCompare(b)),
      keys: table.keys ?? null,
    },
    expectations: target.expectations.map(({ name, condition, action }) => [name, condition, action]),
  };
  return createHash('sha256').update(stableJson(definition)).digest('hex');
}

/** JSON with object keys sorted, so equal definitions always hash alike. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'bigint') return inner.toString();
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)));
  });
}
