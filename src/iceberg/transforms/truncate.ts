/**
 * The truncate transform: integers and decimal unscaled values down to a multiple of W (the
 * remainder is made non-negative, so −1 → −10 for W = 10), strings to W code points, binary to
 * W bytes.
 *
 * int and long follow Java's TruncateUtil bit for bit, in 32- and 64-bit two's-complement
 * arithmetic: where `v − (((v % W) + W) % W)` leaves the type's range (truncate[10] of the
 * minimum int is −2147483650) the value wraps (to 2147483646), as Spark writes it and as Java
 * readers compute it when they prune by a predicate on the column. Decimals do not wrap (Java
 * uses BigDecimal); a result with more digits than the precision cannot be stored and is refused.
 */
import { IcebergFormatError } from '../../errors.js';
import type { PrimitiveType } from '../types.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function bad(type: PrimitiveType, value: unknown, why: string): never {
  const shown = typeof value === 'bigint' ? `${value}n` : value instanceof Uint8Array ? `<${value.length} bytes>` : String(value);
  throw new IcebergFormatError(`cannot truncate ${shown} as ${type.kind}: ${why}`, { context: { type: type.kind } });
}

function truncateInteger(value: bigint, width: bigint): bigint {
  return value - (((value % width) + width) % width);
}

/** Java's `int` arithmetic: JS `%` truncates toward zero as Java's does, `| 0` wraps to 32 bits. */
export function truncateInt32(value: number, width: number): number {
  return (value - (((value % width) + width) | 0) % width) | 0;
}

/** Java's `long` arithmetic (64-bit wrap-around). */
export function truncateInt64(value: bigint, width: bigint): bigint {
  return BigInt.asIntN(64, value - (((value % width) + width) % width));
}

export function truncateValue(type: PrimitiveType, width: number, value: unknown): unknown {
  switch (type.kind) {
    case 'int': {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
        return bad(type, value, 'expected a 32-bit integer number');
      }
      return truncateInt32(value, width);
    }
    case 'long':
      if (typeof value !== 'bigint') return bad(type, value, 'expected a bigint');
      return truncateInt64(value, BigInt(width));
    case 'decimal': {
      if (typeof value !== 'bigint') return bad(type, value, 'expected the unscaled value as a bigint');
      const result = truncateInteger(value, BigInt(width));
      if (result <= -(10n ** BigInt(type.precision))) {
        bad(type, value, `truncate[${width}] gives ${result}, more digits than decimal(${type.precision}, ${type.scale}) holds`);
      }
      return result;
    }
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
