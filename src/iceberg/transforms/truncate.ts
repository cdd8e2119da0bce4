/**
 * The truncate transform: integers and decimal unscaled values down to a multiple of W (the
 * remainder is made non-negative, so −1 → −10 for W = 10), strings to W code points, binary to
 * W bytes.
 */
import { IcebergFormatError } from '../../errors.js';
import type { PrimitiveType } from '../types.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(1n << 63n);

function bad(type: PrimitiveType, value: unknown, why: string): never {
  const shown = typeof value === 'bigint' ? `${value}n` : value instanceof Uint8Array ? `<${value.length} bytes>` : String(value);
  throw new IcebergFormatError(`cannot truncate ${shown} as ${type.kind}: ${why}`, { context: { type: type.kind } });
}

export function truncateInteger(value: bigint, width: bigint): bigint {
  return value - (((value % width) + width) % width);
}

export function truncateValue(type: PrimitiveType, width: number, value: unknown): unknown {
  switch (type.kind) {
    case 'int': {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
        return bad(type, value, 'expected a 32-bit integer number');
      }
      const result = value - (((value % width) + width) % width);
      if (result < INT32_MIN) bad(type, value, `truncate[${width}] leaves the int range`);
      return result;
    }
    case 'long': {
      if (typeof value !== 'bigint') return bad(type, value, 'expected a bigint');
      const result = truncateInteger(value, BigInt(width));
      if (result < INT64_MIN) bad(type, value, `truncate[${width}] leaves the long range`);
      return result;
    }
    case 'decimal':
      if (typeof value !== 'bigint') return bad(type, value, 'expected the unscaled value as a bigint');
      return truncateInteger(value, BigInt(width));
    case 'string': {
      if (typeof value !== 'string') return bad(type, value, 'expected a string');
      // Counting code points, not UTF-16 units: a surrogate pair is one character.
      let units = 0;
      let points = 0;
      for (const ch of value) {
        if (points === width) return value.slice(0, units);
        units += ch.length;
        points++;
      }
      return value;
    }
    case 'binary':
      if (!(value instanceof Uint8Array)) return bad(type, value, 'expected a Uint8Array');
      return value.length <= width ? value : value.slice(0, width);
    default:
      return bad(type, value, 'truncate applies to int, long, decimal, string and binary');
  }
}
