/**
 * The extreme values of every source type (test/unit/iceberg/transform-extremes.ts) written
 * through the real partitioned writer and committed on the SQLite catalog: the partition tuples
 * read back from the manifests hold the spec's value of every transform the type accepts. A
 * value whose partition value the result type cannot hold fails the write with a typed error
 * naming the partition field, before any file is placed, and commits nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { ThundError } from '../../../src/errors.js';
import { readManifest } from '../../../src/iceberg/manifest.js';
import { typeText } from '../../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../../src/iceberg/snapshot-ancestry.js';
import type { PartitionField } from '../../../src/iceberg/table-metadata.js';
import { canTransform } from '../../../src/iceberg/transforms/result-type.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { primitive, V3_TYPE_KINDS } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { manifestsOf, snapshotOf } from '../../../src/table/scan.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';
import { EXTREME_CASES, EXTREME_TRANSFORMS, expectedValue, REFUSED, type ExtremeCase } from '../iceberg/transform-extremes.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

/** Identity of a value this long would name a folder above the file system's 255-byte limit. */
const longValue = (c: ExtremeCase): boolean =>
  (typeof c.value === 'string' && c.value.length > 60) || (c.value instanceof Uint8Array && c.value.length > 60);
const refused = (c: ExtremeCase): boolean => Object.values(c.expected).includes(REFUSED);

/** One table per source type (and per long / refused group): one row, so one file, per case. */
function groups(): Map<string, ExtremeCase[]> {
  const out = new Map<string, ExtremeCase[]>();
  for (const c of EXTREME_CASES) {
    const key = refused(c) ? c.name : `${typeText(c.type)}${longValue(c) ? ' (long values)' : ''}`;
    out.set(key, [...(out.get(key) ?? []), c]);
  }
  return out;
}

let warehouse: LocalWarehouse;
beforeAll(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'partitioned-extremes', namespaces: [['db']] });
});
afterAll(() => warehouse.close());

async function createAndWrite(name: string, cases: readonly ExtremeCase[]) {
  const { catalog, session, io } = warehouse;
  const id: TableIdentifier = { namespace: ['db'], name };
  const sample = cases[0]!;
  const transforms = EXTREME_TRANSFORMS.filter((t) => canTransform(parseTransform(t), sample.type) && !(t === 'identity' && cases.some(longValue)));
  const fields: PartitionField[] = [
    { name: 'case_id', transform: 'identity', sourceId: 1, fieldId: 1000 },
    ...transforms.map((t, i) => ({ name: `c_${i}`, transform: t, sourceId: 2, fieldId: 1001 + i })),
  ];
  await catalog.createTable(id, {
    schema: {
      schemaId: 0,
      identifierFieldIds: [],
      fields: [
        { id: 1, name: 'case_id', required: true, type: primitive('int') },
        { id: 2, name: 'c', required: false, type: sample.type },
      ],
    },
    partitionSpec: { specId: 0, fields },
    // Nanosecond timestamps are v3 types: a v2 table refuses them.
    ...(V3_TYPE_KINDS.has(sample.type.kind) ? { properties: { 'format-version': '3' } } : {}),
  });
  const { metadata } = await catalog.loadTable(id);
  const rows = cases.map((c, i) => `SELECT ${i} AS case_id, ${c.sql} AS c`).join(' UNION ALL ');
  const write = async () => {
    const files = await writePartitionedDataFiles({
      session,
      query: rows,
      schema: currentSchema(metadata),
      spec: defaultSpec(metadata),
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: 'test',
    });
    await commitSnapshot({ catalog, identifier: id, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
  };
  return { id, transforms, write };
}

describe('partitioned writes of extreme values', () => {
  let n = 0;
  for (const [group, cases] of groups()) {
    if (cases.some(refused)) {
      it(`refuses ${group} with a typed error naming the partition field`, async () => {
        const { id, write } = await createAndWrite(`t${n++}`, cases);
        const failure = await write().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(ThundError);
        expect(String((failure as Error).message)).toMatch(/Partition field c_\d+ \(truncate\[10\]\) has a value its type decimal\(\d+, \d+\) cannot hold: .*more than \d+ digits/);
        const { metadata } = await warehouse.catalog.loadTable(id);
        expect(snapshotOf(metadata)).toBeUndefined();
        const data = warehouse.io.localPathFor!(dataLocation(metadata))!;
        expect(existsSync(data) ? readdirSync(data, { recursive: true }).filter((f) => String(f).endsWith('.parquet')) : []).toEqual([]);
      });
      continue;
    }
    it(`writes the spec's partition values of ${group} into the manifest`, async () => {
      const { id, transforms, write } = await createAndWrite(`t${n++}`, cases);
      await write();
      const { metadata } = await warehouse.catalog.loadTable(id);
      const [manifest] = await manifestsOf(warehouse.io, snapshotOf(metadata)!);
      const entries = readManifest(await warehouse.io.read(manifest!.manifestPath), manifest!.manifestPath, {
        snapshotId: manifest!.addedSnapshotId,
        sequenceNumber: manifest!.sequenceNumber,
      });
      expect(entries.map((e) => e.dataFile.partition.get(1000)).sort()).toEqual(cases.map((_, i) => i));
      for (const entry of entries) {
        const c = cases[entry.dataFile.partition.get(1000) as number]!;
        transforms.forEach((t, i) => {
          expect(entry.dataFile.partition.get(1001 + i), `${t} of ${c.name}`).toEqual(expectedValue(c, t));
        });
      }
    });
  }
});
