import { describe, expect, it } from 'vitest';
import { isStageableJsonObject, reservedKeyBytes } from '../../../connectors/kafka/json-object-check.js';
import { RECORD_COORDINATE_FIELDS } from '../../../connectors/streaming-source.js';

const RESERVED = reservedKeyBytes(RECORD_COORDINATE_FIELDS);
const check = (text: string | Buffer): boolean => isStageableJsonObject(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, RESERVED);

function parsesToObject(bytes: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

describe('stageable JSON object check', () => {
  it('passes single-line objects of every JSON value kind', () => {
    for (const text of [
      '{}',
      ' { } ',
      '{"a":1,"b":-0.5e+3,"c":"x\\"y\\\\z\\u00e9\\n","d":[true,false,null,[],{}],"e":{"f":{"g":[1,2,3]}}}',
      '\t{"name":"café ☕ 𝄞","_other":1,"n":0,"m":-12.25E-2}',
      '{"offset":1,"topic":"t","nested":{"_kafka_offset":1}}',
    ]) {
      expect(check(text), text).toBe(true);
      expect(parsesToObject(Buffer.from(text))).toBe(true);
    }
  });

  it('sends to JSON.parse what is not an object, not JSON, not one line or has a reserved or escaped top-level key', () => {
    for (const text of [
      '[1,2]',
      '"x"',
      '12',
      'null',
      '{"a":1',
      '{"a":1,}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":+1}',
      '{"a":tru}',
      '{"a":NaN}',
      "{'a':1}",
      '{"a":1}{"b":2}',
      '{"a":1} x',
      '{"a":\n1}',
      '{"a":1}\r',
      '{"a":"tab\there"}',
      '{"a":"\\x"}',
      '{"a":"\\u12G4"}',
      '{"_kafka_offset":1}',
      '{"id":1,"_kafka_key":"k"}',
      '{"\\u005foffset":1}',
      '{"a":1 "b":2}',
      `{"deep":${'['.repeat(70)}${']'.repeat(70)}}`,
    ]) {
      expect(check(text), text).toBe(false);
    }
    expect(check(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).toBe(false);
    expect(check(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"a":1}')]))).toBe(false);
  });

  it('never passes what JSON.parse rejects, over random mutations of an object', () => {
    const base = Buffer.from('{"id":12345,"name":"user-\\u00e9 x","score":-1.5e3,"tags":["a","b"],"ok":true,"none":null,"n":{"k":[0,1.25]}}');
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const alphabet = Buffer.from('{}[]":,.-+eE0123456789\\ u\tabtfn\x01');
    let passed = 0;
    for (let round = 0; round < 5_000; round++) {
      const bytes = Buffer.from(base);
      for (let edits = 1 + random(3); edits > 0; edits--) bytes[random(bytes.length)] = alphabet[random(alphabet.length)] as number;
      if (check(bytes)) {
        passed++;
        expect(parsesToObject(bytes), bytes.toString('latin1')).toBe(true);
      }
    }
    expect(passed).toBeGreaterThan(100);
  });
});
