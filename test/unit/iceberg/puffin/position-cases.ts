/**
 * Position sets, and the deletion-vector blob Iceberg Java 1.12.0 wrote for each
 * (BitmapPositionDeleteIndex.serialize in iceberg-spark-runtime-4.1_2.13-1.12.0.jar, after adding
 * the positions one by one): its length, SHA-256, and the whole blob when short.
 */
import { expect } from 'vitest';

const KEY = 1n << 32n;

function range(from: number | bigint, to: number | bigint, step = 1n): bigint[] {
  const out: bigint[] = [];
  for (let v = BigInt(from); v < BigInt(to); v += step) out.push(v);
  return out;
}

/** 64-bit LCG (Knuth's MMIX constants), so the same sequence is easy to make in Java too. */
export function lcgPositions(seed: bigint, count: number, bound: bigint): bigint[] {
  const out: bigint[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    out.push((x >> 11n) % bound);
  }
  return out;
}

/** `count` runs of `length` values, each run followed by a gap of one value. */
function runsOf(count: number, length: number): bigint[] {
  return Array.from({ length: count }, (_, k) => range(k * (length + 1), k * (length + 1) + length)).flat();
}

export const CASE_POSITIONS: Readonly<Record<string, () => bigint[]>> = {
  empty: () => [],
  zero: () => [0n],
  single: () => [42n],
  alternating: () => [1n, 3n, 5n, 7n, 9n],
  // Ties: an array stays an array when a run container would be the same size or larger.
  pairRun: () => [5n, 6n],
  tripleRun: () => [5n, 6n, 7n],
  quadRun: () => [5n, 6n, 7n, 8n],
  dense100k: () => range(0, 100_000),
  sparse: () => range(0, 10_000_000, 1000n),
  highKeysWithGaps: () => [3n, KEY + 5n, ...range(KEY + 7n, KEY + 100n), 3n * KEY + 7n * 65536n + 1n, 7n * KEY + 0xffffffffn],
  onlyHighKey: () => [5n * KEY + 17n],
  topContainer: () => [0xfffffffen, 0xffffffffn],
  array4096: () => range(0, 8192, 2n),
  bitset4097: () => range(0, 8194, 2n),
  run4096: () => range(0, 4096),
  run4097: () => range(0, 4097),
  bitset2047Runs: () => runsOf(2047, 3),
  bitset2048Runs: () => runsOf(2048, 3),
  fullContainer: () => range(0, 65536),
  threeRunContainers: () => [0, 1, 2].flatMap((c) => range(c * 65536, c * 65536 + 10)),
  sixRunContainers: () => [0, 1, 2, 3, 4, 5].flatMap((c) => range(c * 65536, c * 65536 + 10)),
  mixedFourContainers: () => [0n, 2n, 65536n + 1n, 65536n + 3n, ...range(2 * 65536, 3 * 65536), ...range(3 * 65536, 3 * 65536 + 9000, 2n)],
  random100k: () => lcgPositions(12345n, 100_000, 3n * KEY),
};

export interface JavaBlob {
  readonly length: number;
  readonly sha256: string;
  readonly hex?: string;
}

export const JAVA_BLOBS: Readonly<Record<string, JavaBlob>> = {
  empty: { length: 20, sha256: '934731946f34f526bfa6b0d19c5144c189773a5f3f783f79891a8e990e9fe2ed', hex: '0000000cd1d339640000000000000000bf18480c' },
  zero: { length: 42, sha256: 'e504a6822074c16172cca3cdbb4c7d6734466ce0d4a04fc20758c4204999a33e', hex: '00000022d1d339640100000000000000000000003a3000000100000000000000100000000000f7a6b4b5' },
  single: { length: 42, sha256: 'b600dbb448d786351054406220d99e0492ef23a45bae2b427a473b7fd0f84d5d', hex: '00000022d1d339640100000000000000000000003a3000000100000000000000100000002a0098cd789d' },
  alternating: { length: 50, sha256: 'c8237ab02ae9715deaf351114962ffc73fdfea63d8e74b7815de4e6f40993112', hex: '0000002ad1d339640100000000000000000000003a30000001000000000004001000000001000300050007000900b3fb20be' },
  pairRun: { length: 44, sha256: 'c190aee684321257add685193100b3817fc893fc3b4001645b3f9089f6e1641e', hex: '00000024d1d339640100000000000000000000003a300000010000000000010010000000050006009a21f4bb' },
  tripleRun: { length: 46, sha256: 'ad48c1ab396ba4482187c81ea46eafc6d589265edccbdd5d95f762bfc1e19ed2', hex: '00000026d1d339640100000000000000000000003a300000010000000000020010000000050006000700c4e78d9f' },
  quadRun: { length: 39, sha256: '1b5d1ec94b491eb9cebcd5aa649518cce08a8f06625bb2808226ecf58d0a9f94', hex: '0000001fd1d339640100000000000000000000003b30000001000003000100050003000af4ee07' },
  dense100k: { length: 49, sha256: '16d0c9bbd781ea1d9b467fd54fa8fc5d3e5471cfd7b4bf139c29f78924ccee16', hex: '00000029d1d339640100000000000000000000003b300100030000ffff01009f8601000000ffff010000009f866665f85f' },
  sparse: { length: 21256, sha256: '824a7a3740d3089910da5f9190c8fe1d90a9640f35d89b0edd8335e936b37157' },
  highKeysWithGaps: { length: 157, sha256: 'd6450366d9896f8166a10256154ce9af3d75cd81027c8f224b2d66dff94a81a0', hex: '00000095d1d339640800000000000000000000003a3000000100000000000000100000000300010000003b3000000100005d0002000500000007005c00020000003a30000000000000030000003a3000000100000007000000100000000100040000003a30000000000000050000003a30000000000000060000003a30000000000000070000003a30000001000000ffff000010000000ffffdc01f141' },
  onlyHighKey: { length: 102, sha256: 'ed69819c6616d65f776e1bc74ef43df5c96092b3772500764d137978fec6d298', hex: '0000005ed1d339640600000000000000000000003a30000000000000010000003a30000000000000020000003a30000000000000030000003a30000000000000040000003a30000000000000050000003a30000001000000000000001000000011003badae55' },
  topContainer: { length: 44, sha256: '0cdb70fc1587c246f3373476d351a51f2a85330ff9f2a0a2dba263a611f45cf9', hex: '00000024d1d339640100000000000000000000003a30000001000000ffff010010000000feffffffb1800646' },
  array4096: { length: 8232, sha256: '0724b1fa90c96232c23a9f7bdc30341048f7e13923f730788943921a2763ae27' },
  bitset4097: { length: 8232, sha256: 'e900d975e966226df6a61ab3b3c4f0e236af7285f51e18aac2ee38e9266df7b8' },
  run4096: { length: 39, sha256: '74aecf4152dc12f1e6fcb8be06d994e9f60e30e6a9a74d7dea788be26d18c358', hex: '0000001fd1d339640100000000000000000000003b300000010000ff0f01000000ff0f4b10dcf9' },
  run4097: { length: 39, sha256: '21148229ccf312c2a62f79602e49fdf1d4b109c5c6a2cf89f10648f758958d6b', hex: '0000001fd1d339640100000000000000000000003b3000000100000010010000000010e2e1c6bf' },
  bitset2047Runs: { length: 8223, sha256: '05f69bc108affce09d331ad3e1157fec274b695616b57a140f96121a6f89f078' },
  bitset2048Runs: { length: 8232, sha256: '2586e1d0b973119b5ee21638373109ea79fa9e794fb349e984335cd765e67889' },
  fullContainer: { length: 39, sha256: '36fcf20660eec48fe635c1c9fec83c81845c12840caffdc5e10c02c15e84605a', hex: '0000001fd1d339640100000000000000000000003b300000010000ffff01000000ffff92d3143c' },
  threeRunContainers: { length: 59, sha256: '49bdc0748e98bb7d84f9e47ebfa278d68ec2c7cf66d8fdb28a54dcc12730ce94', hex: '00000033d1d339640100000000000000000000003b300200070000090001000900020009000100000009000100000009000100000009001b680f7c' },
  sixRunContainers: { length: 113, sha256: 'babb21cee5c4734fd3dec98cb7ab0a3d556d8143824eb68d8c3b05d9f7fb1ad1', hex: '00000069d1d339640100000000000000000000003b3005003f000009000100090002000900030009000400090005000900350000003b00000041000000470000004d0000005300000001000000090001000000090001000000090001000000090001000000090001000000090066203ab0' },
  mixedFourContainers: { length: 8267, sha256: 'a5ba514711f19af81edffcdf39442c39ecb060931ce3b0770b34e9bef793e13b' },
  random100k: { length: 827928, sha256: '249e967d45a9ec96d79413e7fece32cbb9041d9f816a9330cd2594471ba6f21c' },
};

/** toEqual on millions of BigInts takes seconds: compare the bytes, and report the first difference. */
export function expectSamePositions(actual: BigInt64Array, expected: BigInt64Array): void {
  if (actual.length === expected.length && Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength))) return;
  const at = actual.findIndex((v, i) => v !== expected[i]);
  expect({ length: actual.length, firstDifference: at, value: actual[at] }).toEqual({ length: expected.length, firstDifference: -1, value: undefined });
}
