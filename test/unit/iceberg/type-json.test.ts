import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import { parseSchema, parseType, schemaToJson, typeToJson } from '../../../src/iceberg/type-json.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');

function metadataFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...metadataFiles(p));
    else if (/metadata\.json(\.gz)?$/.test(name) || (/\.json$/.test(name) && p.includes('testdata') && /metadata/i.test(name)))
      out.push(p);
  }
  return out;
}

function readJson(path: string): Record<string, unknown> {
  const raw = readFileSync(path);
  const text = path.endsWith('.gz') || (raw[0] === 0x1f && raw[1] === 0x8b) ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

/** Normalise the only textual freedom the spec leaves: spaces inside decimal(P,S). */
function normalise(json: unknown): unknown {
  if (typeof json === 'string') return json.replace(/^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/, 'decimal($1,$2)');
  if (Array.isArray(json)) return json.map(normalise);
  if (json !== null && typeof json === 'object') {
    return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, normalise(v)]));
  }
  return json;
}

describe('schema JSON against foreign-written metadata', () => {
  it('finds the fixtures folder', () => {
    expect(existsSync(FIXTURES), `fixtures missing at ${FIXTURES}`).toBe(true);
  });

  const files = existsSync(FIXTURES) ? metadataFiles(FIXTURES) : [];
  const schemas: Array<{ file: string; json: Record<string, unknown> }> = [];
  for (const file of files) {
    let meta: Record<string, unknown>;
    try {
      meta = readJson(file);
    } catch {
      continue;
    }
    const list = Array.isArray(meta['schemas']) ? (meta['schemas'] as Record<string, unknown>[]) : [];
    if (meta['schema'] && typeof meta['schema'] === 'object') list.push(meta['schema'] as Record<string, unknown>);
    for (const json of list) schemas.push({ file, json });
  }

  it('parses every schema written by Java/pyiceberg/iceberg-rust and writes it back unchanged', () => {
    expect(schemas.length).toBeGreaterThan(50);
    for (const { file, json } of schemas) {
      const parsed = parseSchema(json, file);
      const back = schemaToJson(parsed);
      const expected = { ...json };
      if (Array.isArray(expected['identifier-field-ids']) && expected['identifier-field-ids'].length === 0) {
        delete expected['identifier-field-ids'];
      }
      if (expected['schema-id'] === undefined) expected['schema-id'] = 0;
      expect(normalise(back), file).toEqual(normalise(expected));
      expect(parseSchema(back, file)).toEqual(parsed);
    }
  });

  it('reads v3 defaults, docs and nested types from the fixtures', () => {
    const withDefaults = schemas.filter(({ json }) => JSON.stringify(json).includes('initial-default'));
    expect(withDefaults.length).toBeGreaterThan(0);
    const parsed = parseSchema(withDefaults[0]!.json, 'x');
    expect(parsed.fields.some((f) => f.initialDefault !== undefined)).toBe(true);
    const kinds = new Set<string>();
    const visit = (t: unknown): void => {
      const o = t as { kind: string; fields?: { type: unknown }[]; element?: unknown; key?: unknown; value?: unknown };
      kinds.add(o.kind);
      o.fields?.forEach((f) => visit(f.type));
      if (o.element) visit(o.element);
      if (o.key) visit(o.key);
      if (o.value) visit(o.value);
    };
    for (const { json } of schemas) visit({ kind: 'struct', fields: parseSchema(json, 'x').fields });
    for (const k of ['struct', 'list', 'map', 'decimal', 'fixed', 'uuid', 'timestamptz', 'time', 'binary']) {
      expect(kinds.has(k), k).toBe(true);
    }
  });
});

describe('parseType / typeToJson', () => {
  it('parses decimal and fixed forms with and without spaces', () => {
    expect(parseType('decimal(9,2)', 'p')).toEqual({ kind: 'decimal', precision: 9, scale: 2 });
    expect(parseType('decimal( 38 , 0 )', 'p')).toEqual({ kind: 'decimal', precision: 38, scale: 0 });
    expect(parseType('fixed[16]', 'p')).toEqual({ kind: 'fixed', length: 16 });
    expect(typeToJson({ kind: 'decimal', precision: 9, scale: 2 })).toBe('decimal(9, 2)');
    expect(typeToJson({ kind: 'fixed', length: 3 })).toBe('fixed[3]');
  });

  it('round-trips list and map objects, accepting bigint ids', () => {
    const json = {
      type: 'map',
      'key-id': 4n,
      key: 'string',
      'value-id': 5,
      'value-required': false,
      value: { type: 'list', 'element-id': 6, 'element-required': true, element: 'timestamp_ns' },
    };
    const t = parseType(json, 'col');
    expect(t).toEqual({
      kind: 'map',
      keyId: 4,
      key: { kind: 'string' },
      valueId: 5,
      valueRequired: false,
      value: { kind: 'list', elementId: 6, elementRequired: true, element: { kind: 'timestamp_ns' } },
    });
    expect(typeToJson(t)).toEqual({ ...json, 'key-id': 4 });
  });

  it('throws IcebergFormatError naming the path', () => {
    const bad = (json: unknown, msg: RegExp): void => {
      expect(() => parseType(json, 'schemas[0].fields[2]')).toThrow(IcebergFormatError);
      expect(() => parseType(json, 'schemas[0].fields[2]')).toThrow(msg);
    };
    bad('varchar', /unsupported Iceberg type "varchar" at schemas\[0\]\.fields\[2\]/);
    bad('decimal(39,2)', /precision/);
    bad('decimal(4,5)', /scale/);
    bad('fixed[0]', /fixed length/);
    bad({ type: 'list', 'element-id': 1, element: 'int' }, /element-required/);
    bad({ type: 'struct', fields: [{ id: 1, name: 'a', required: true, type: 'nope' }] }, /fields\[0\]\(a\)\.type/);
    bad({ type: 'tuple' }, /unknown nested type/);
    bad(42, /expected a type/);
  });

  it('rejects duplicate field ids and unknown identifier fields', () => {
    const dup = {
      type: 'struct',
      'schema-id': 0,
      fields: [
        { id: 1, name: 'a', required: true, type: 'int' },
        { id: 2, name: 'b', required: false, type: { type: 'list', 'element-id': 1, 'element-required': true, element: 'int' } },
      ],
    };
    expect(() => parseSchema(dup, 'schemas[0]')).toThrow(/field id 1 is used by both "a" and "b.element"/);
    const ident = { type: 'struct', 'schema-id': 0, 'identifier-field-ids': [9], fields: [{ id: 1, name: 'a', required: true, type: 'int' }] };
    expect(() => parseSchema(ident, 'schemas[0]')).toThrow(/identifier field id 9/);
  });
});
