/**
 * Table properties that steer the data file writer, with Iceberg's defaults.
 */
import { InvalidInputError } from '../errors.js';

export interface WriteSettings {
  readonly targetFileSizeBytes: bigint;
  /** Only when the table sets it: DuckDB's row-group sizing by rows is the default otherwise. */
  readonly rowGroupSizeBytes?: bigint;
  readonly compressionCodec: 'zstd' | 'snappy' | 'gzip' | 'uncompressed' | 'lz4_raw' | 'brotli';
  /**
   * Thund's `write.partitioned.max-open-files`: how many partition files one partitioned COPY
   * keeps open (DuckDB's partitioned_write_max_open_files). Beyond it DuckDB closes the least
   * recently written file and a later row of that partition starts a new file: more, smaller
   * files instead of more memory (about 0.25 MB per open file measured).
   */
  readonly partitionedMaxOpenFiles: number;
  /**
   * Iceberg's `write.distribution-mode` when the table sets it: `hash` or `range` cluster the rows
   * by partition before a partitioned write, `none` fans them out as they come. Java's default
   * (unset) is `hash` for partitioned tables without a sort order, `none` otherwise.
   */
  readonly distributionMode?: 'none' | 'hash' | 'range';
}

const DEFAULT_TARGET_FILE_SIZE = 512n * 1024n * 1024n;
/** DuckDB's own default. */
const DEFAULT_MAX_OPEN_FILES = 100n;
const MAX_OPEN_FILES_LIMIT = 100_000n;
const CODECS = new Map<string, WriteSettings['compressionCodec']>([
  ['zstd', 'zstd'],
  ['snappy', 'snappy'],
  ['gzip', 'gzip'],
  ['uncompressed', 'uncompressed'],
  ['lz4', 'lz4_raw'],
  ['brotli', 'brotli'],
]);

export function writeProperties(properties: Readonly<Record<string, string>>): WriteSettings {
  const codecName = (properties['write.parquet.compression-codec'] ?? 'zstd').toLowerCase();
  const compressionCodec = CODECS.get(codecName);
  if (compressionCodec === undefined) {
    throw new InvalidInputError(
      `Table property write.parquet.compression-codec: "${codecName}" is not one of ${[...CODECS.keys()].join(', ')}`,
      { context: { property: 'write.parquet.compression-codec' } },
    );
  }
  return {
    targetFileSizeBytes: positiveBytes(properties, 'write.target-file-size-bytes', DEFAULT_TARGET_FILE_SIZE),
    rowGroupSizeBytes: optionalPositiveBytes(properties, 'write.parquet.row-group-size-bytes'),
    compressionCodec,
    partitionedMaxOpenFiles: maxOpenFiles(properties),
    ...distributionMode(properties),
  };
}

function distributionMode(properties: Readonly<Record<string, string>>): Pick<WriteSettings, 'distributionMode'> {
  const key = 'write.distribution-mode';
  const text = properties[key];
  if (text === undefined) return {};
  const mode = text.toLowerCase();
  if (mode !== 'none' && mode !== 'hash' && mode !== 'range') {
    throw new InvalidInputError(`Table property ${key}: "${text}" is not one of none, hash, range`, { context: { property: key } });
  }
  return { distributionMode: mode };
}

function maxOpenFiles(properties: Readonly<Record<string, string>>): number {
  const key = 'write.partitioned.max-open-files';
  const value = optionalPositive(properties, key, 'files') ?? DEFAULT_MAX_OPEN_FILES;
  if (value > MAX_OPEN_FILES_LIMIT) {
    throw new InvalidInputError(`Table property ${key}: ${value} is above ${MAX_OPEN_FILES_LIMIT}`, { context: { property: key } });
  }
  return Number(value);
}

function positiveBytes(properties: Readonly<Record<string, string>>, key: string, fallback: bigint): bigint {
  return optionalPositiveBytes(properties, key) ?? fallback;
}

function optionalPositiveBytes(properties: Readonly<Record<string, string>>, key: string): bigint | undefined {
  return optionalPositive(properties, key, 'bytes');
}

function optionalPositive(properties: Readonly<Record<string, string>>, key: string, unit: string): bigint | undefined {
  const text = properties[key];
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(text)) {
    throw new InvalidInputError(`Table property ${key}: "${text}" is not a positive number of ${unit}`, {
      context: { property: key },
    });
  }
  return BigInt(text);
}
