/**
 * Conformance: every manifest list and manifest written by Spark/Java, PyIceberg, BigQuery and
 * iceberg-rust in the shared fixtures decodes, and agrees with its table's metadata.json.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import { decodeSingleValue, encodeSingleValue } from '../../../src/iceberg/bounds.js';
import { readContainer } from '../../../src/iceberg/avro/container.js';
import { DataFileContent, ManifestEntryStatus } from '../../../src/iceberg/data-file.js';
import type { ManifestEntry, ManifestFile } from '../../../src/iceberg/data-file.js';
import { parseJson } from '../../../src/iceberg/json.js';
import { partitionType, readManifest } from '../../../src/iceberg/manifest.js';
import { readManifestList } from '../../../src/iceberg/manifest-list.js';
import { parseSchema } from '../../../src/iceberg/type-json.js';
import type { PrimitiveType } from '../../../src/iceberg/types.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const DUCK_ROOT = join(FIXTURES, 'duckdb-iceberg');
const PERSISTENT = join(DUCK_ROOT, 'data/persistent');
const RUST_LISTS = join(FIXTURES, 'iceberg-rust/crates/iceberg/testdata/manifests_lists');

type Json = Record<string, unknown>;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function isManifestList(path: string): boolean {
  return JSON.stringify(readContainer(readFileSync(path), path).schemaJson).includes('"field-id":500');
}

function readMetadata(path: string): Json {
  let bytes = readFileSync(path);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  return parseJson(bytes.toString('utf8'), path) as Json;
}

/** Fixture paths are relative to duckdb-iceberg/ (some to the table's parent); strip file://. */
function resolvePath(path: string, tableDir: string): string | undefined {
  const rel = path.replace(/^file:(\/\/)?/, '');
  if (rel.startsWith('/')) return existsSync(rel) ? rel : undefined;
  for (let dir = tableDir; dir.startsWith(DUCK_ROOT); dir = dirname(dir)) {
    if (existsSync(join(dir, rel))) return join(dir, rel);
  }
  return undefined;
}

const big = (v: unknown): bigint => BigInt(v as number | bigint | string);

interface Snapshot {
  id: bigint;
  sequenceNumber: bigint;
  manifestList: string;
  summary: Record<string, string>;
}

function snapshotsOf(meta: Json): Snapshot[] {
  // v1 snapshots may list manifests inline instead of naming a manifest list.
  const withList = ((meta['snapshots'] as Json[] | undefined) ?? []).filter((s) => typeof s['manifest-list'] === 'string');
  return withList.map((s) => ({
    id: big(s['snapshot-id']),
    sequenceNumber: big(s['sequence-number'] ?? 0),
    manifestList: s['manifest-list'] as string,
    summary: s['summary'] as Record<string, string>,
  }));
}

function readEntries(m: ManifestFile, tableDir: string): ManifestEntry[] {
  const path = resolvePath(m.manifestPath, tableDir);
  expect(path, `manifest ${m.manifestPath} exists`).toBeDefined();
  return readManifest(readFileSync(path!), path!, {
    snapshotId: m.addedSnapshotId,
    sequenceNumber: m.sequenceNumber,
    firstRowId: m.firstRowId ?? null,
    partitionSpecId: m.partitionSpecId,
  });
}

const allAvro = [...walk(PERSISTENT).filter((p) => p.includes('/metadata/')), ...walk(RUST_LISTS)].filter((p) => p.endsWith('.avro'));
const tableDirs = [...new Set(walk(PERSISTENT).filter((p) => /\.metadata\.json$/.test(p)).map((p) => dirname(dirname(p))))];

describe('foreign manifest fixtures', () => {
  it('has the fixture folders', () => {
    expect(existsSync(PERSISTENT), PERSISTENT).toBe(true);
    expect(existsSync(RUST_LISTS), RUST_LISTS).toBe(true);
    expect(allAvro.length).toBeGreaterThan(130);
    expect(tableDirs.length).toBeGreaterThan(30);
  });

  it('decodes every manifest list and manifest', () => {
    let lists = 0;
    let manifests = 0;
    for (const path of allAvro) {
      if (path.endsWith('manifest-list-v3-encrypted.avro')) {
        // AES-GCM "AGS1" stream: not an Avro container until decrypted.
        expect(() => readContainer(readFileSync(path), path)).toThrow(IcebergFormatError);
        expect(() => readContainer(readFileSync(path), path)).toThrow(/manifest-list-v3-encrypted\.avro/);
        continue;
      }
      const bytes = readFileSync(path);
      if (isManifestList(path)) {
        const list = readManifestList(bytes, path);
        for (const m of list) expect(typeof m.manifestPath).toBe('string');
        lists++;
      } else {
        const entries = readManifest(bytes, path, { snapshotId: 1n, sequenceNumber: 1n });
        for (const e of entries) {
          expect(e.dataFile.recordCount >= 0n).toBe(true);
          expect(['PARQUET', 'AVRO', 'ORC', 'PUFFIN']).toContain(e.dataFile.fileFormat);
        }
        manifests++;
      }
    }
    expect(lists).toBeGreaterThan(60);
    expect(manifests).toBeGreaterThan(60);
  });

  it('reads the iceberg-rust v2 lists with their snapshot ids and sequence numbers', () => {
    for (const name of ['manifest-list-v2-1.avro', 'manifest-list-v2-2.avro']) {
      const path = join(RUST_LISTS, name);
      const { metadata } = readContainer(readFileSync(path), path);
      const list = readManifestList(readFileSync(path), path);
      expect(list.length).toBeGreaterThan(0);
      for (const m of list) {
        expect(m.addedSnapshotId).toBe(BigInt(metadata['snapshot-id']!));
        expect(m.sequenceNumber).toBe(BigInt(metadata['sequence-number']!));
        expect(m.addedFilesCount).toBe(1);
      }
    }
  });

  it('agrees with every snapshot of every table metadata.json', () => {
    let snapshotsChecked = 0;
    let totalsChecked = 0;
    const missingLists: string[] = [];
    let localFilesChecked = 0;
    for (const tableDir of tableDirs) {
      const metaFiles = readdirSync(join(tableDir, 'metadata')).filter((f) => /\.metadata\.json$/.test(f));
      const metas = metaFiles.map((f) => ({ file: f, meta: readMetadata(join(tableDir, 'metadata', f)) }));
      // The newest metadata's current snapshot must be fully present.
      const newest = metas.reduce((a, b) => (big(b.meta['last-updated-ms'] ?? 0) > big(a.meta['last-updated-ms'] ?? 0) ? b : a));
      const current = newest.meta['current-snapshot-id'];
      if (current !== undefined && current !== null && big(current) !== -1n) {
        const snap = snapshotsOf(newest.meta).find((s) => s.id === big(current));
        if (snap !== undefined) expect(resolvePath(snap.manifestList, tableDir), `${tableDir} current snapshot list`).toBeDefined();
      }
      for (const { file: metaFile, meta } of metas) {
        const formatVersion = Number(meta['format-version']);
        for (const snap of snapshotsOf(meta)) {
          const where = `${tableDir} ${metaFile} snapshot ${snap.id}`;
          const listPath = resolvePath(snap.manifestList, tableDir);
          // Some fixture tables were re-created, leaving older metadata pointing at removed lists.
          if (listPath === undefined) {
            missingLists.push(where);
            continue;
          }
          const listBytes = readFileSync(listPath!);
          const listMeta = readContainer(listBytes, listPath!).metadata;
          if (listMeta['snapshot-id'] !== undefined) expect(BigInt(listMeta['snapshot-id']), where).toBe(snap.id);
          const list = readManifestList(listBytes, listPath!);
          let liveRecords = 0n;
          let liveDataFiles = 0;
          let liveDeleteFiles = 0;
          for (const m of list) {
            const entries = readEntries(m, tableDir);
            if (formatVersion >= 2 && listMeta['format-version'] !== '1') {
              expect(m.addedFilesCount, `${where} ${m.manifestPath}`).toBe(entries.filter((e) => e.status === ManifestEntryStatus.Added).length);
            }
            for (const e of entries) {
              if (e.status === ManifestEntryStatus.Added && m.addedSnapshotId === snap.id && formatVersion >= 2) {
                expect(e.sequenceNumber, `${where}: inherited sequence number`).toBe(snap.sequenceNumber);
                expect(e.snapshotId).toBe(snap.id);
              }
              if (e.status === ManifestEntryStatus.Deleted) continue;
              // generated_bounds points at s3://fake-bucket; every local path must exist.
              if (!/^[a-z0-9]+:\/\//.test(e.dataFile.filePath) || e.dataFile.filePath.startsWith('file:')) {
                expect(resolvePath(e.dataFile.filePath, tableDir), `${where}: ${e.dataFile.filePath}`).toBeDefined();
                localFilesChecked++;
              }
              if (e.dataFile.content === DataFileContent.Data) {
                liveRecords += e.dataFile.recordCount;
                liveDataFiles++;
              } else liveDeleteFiles++;
            }
          }
          const summary = snap.summary;
          if (summary['total-records'] !== undefined) {
            expect(liveRecords, `${where}: total-records`).toBe(BigInt(summary['total-records']));
            totalsChecked++;
          }
          if (summary['total-data-files'] !== undefined) expect(liveDataFiles, where).toBe(Number(summary['total-data-files']));
          if (summary['total-delete-files'] !== undefined) expect(liveDeleteFiles, where).toBe(Number(summary['total-delete-files']));
          snapshotsChecked++;
        }
      }
    }
    expect(snapshotsChecked).toBeGreaterThan(50);
    expect(missingLists.length, missingLists.join('\n')).toBeLessThan(snapshotsChecked / 5);
    expect(localFilesChecked).toBeGreaterThan(100);
    expect(totalsChecked).toBeGreaterThan(40);
  });

  /** Hive-style `partition_col=<text>` directory of a data file, as Spark named it. */
  function pathValue(path: string): string {
    const m = /partition_col=([^/]+)\//.exec(path);
    expect(m, path).not.toBeNull();
    return decodeURIComponent(m![1]!);
  }

  /** Unscaled value of a Java BigDecimal text ("-12.5", "1E-11") at the given scale. */
  function unscaledOf(text: string, scale: number): bigint {
    const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
    const digits = BigInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0');
    const exponent = scale - (m[3]?.length ?? 0) + Number(m[4] ?? 0);
    const value = exponent >= 0 ? digits * 10n ** BigInt(exponent) : digits / 10n ** BigInt(-exponent);
    return m[1] === '-' ? -value : value;
  }

  /** The partition value in Spark's directory-name text form. */
  function sparkText(type: PrimitiveType, v: unknown): string {
    switch (type.kind) {
      case 'decimal':
        return String(v);
      case 'binary':
      case 'fixed':
        return Buffer.from(v as Uint8Array).toString('base64');
      case 'time': {
        const s = Number((v as bigint) / 1_000_000n);
        return [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
      }
      case 'timestamp':
        return new Date(Number((v as bigint) / 1000n)).toISOString().replace('.000Z', '');
      case 'timestamptz':
        return new Date(Number((v as bigint) / 1000n)).toISOString().replace('.000Z', '+00:00');
      default:
        return String(v);
    }
  }

  const partitionTables = tableDirs.filter((d) => /\/partition_[a-z_]+(\/|$)/.test(d.slice(PERSISTENT.length)));

  it('decodes identity partition values of every type as the table data shows them', () => {
    expect(partitionTables.length).toBeGreaterThanOrEqual(14);
    for (const tableDir of partitionTables) {
      const metaFiles = readdirSync(join(tableDir, 'metadata')).filter((f) => /\.metadata\.json$/.test(f)).sort();
      const meta = readMetadata(join(tableDir, 'metadata', metaFiles.at(-1)!));
      const schemaJson = (meta['schemas'] as Json[]).find((s) => Number(s['schema-id']) === Number(meta['current-schema-id']))!;
      const schema = parseSchema(schemaJson, tableDir);
      const specJson = (meta['partition-specs'] as Json[]).find((s) => Number(s['spec-id']) === Number(meta['default-spec-id']))!;
      const spec = {
        specId: Number(specJson['spec-id']),
        fields: (specJson['fields'] as Json[]).map((f) => ({ sourceId: Number(f['source-id']), fieldId: Number(f['field-id']), name: String(f['name']), transform: String(f['transform']) })),
      };
      const [field] = partitionType(spec, schema);
      expect(field, tableDir).toBeDefined();
      const current = snapshotsOf(meta).find((s) => s.id === big(meta['current-snapshot-id']))!;
      const list = readManifestList(readFileSync(resolvePath(current.manifestList, tableDir)!), current.manifestList);
      const values: unknown[] = [];
      for (const m of list) {
        for (const e of readEntries(m, tableDir)) {
          const v = e.dataFile.partition.get(field!.fieldId);
          values.push(v);
          const jsType = { boolean: 'boolean', int: 'number', date: 'number', float: 'number', double: 'number', string: 'string', uuid: 'string' }[field!.type.kind as string];
          if (jsType !== undefined) expect(typeof v, tableDir).toBe(jsType);
          else if (field!.type.kind === 'binary' || field!.type.kind === 'fixed') expect(v).toBeInstanceOf(Uint8Array);
          else expect(typeof v, tableDir).toBe('bigint');
          const text = pathValue(e.dataFile.filePath);
          if (field!.type.kind === 'float' || field!.type.kind === 'double') {
            // Spark prints the shortest text of the float; compare as float32.
            expect(Math.fround(v as number), `${tableDir}: ${e.dataFile.filePath}`).toBe(Math.fround(Number(text)));
          } else {
            const expected = field!.type.kind === 'decimal' ? String(unscaledOf(text, field!.type.scale)) : text;
            expect(sparkText(field!.type, v), `${tableDir}: ${e.dataFile.filePath}`).toBe(expected);
          }
          // The identity source column's bounds in the same data file hold the very same value.
          const lower = e.dataFile.lowerBounds?.get(spec.fields[0]!.sourceId);
          if (lower !== undefined && field!.type.kind !== 'decimal') {
            expect(encodeSingleValue(field!.type, v)).toEqual(lower);
          } else if (lower !== undefined) {
            expect(decodeSingleValue(field!.type, lower)).toBe(v);
          }
        }
        // The list's partition summary bounds cover exactly the values seen.
        const summary = m.partitions![0]!;
        expect(summary.containsNull).toBe(values.some((v) => v === null));
      }
      expect(values.length).toBe(Number(current.summary['total-data-files']));
    }
  });
});
