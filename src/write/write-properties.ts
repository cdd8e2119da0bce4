/**
 * Table properties that steer the data file writer, with Iceberg's defaults.
 */
import { InvalidInputError } from '../errors.js';

export interface WriteSettings {
  readonly targetFileSizeBytes: bigint;
  /** Only when the table sets it: DuckDB's row-group sizing by rows is the default otherwise. */
  readonly rowGroupSizeBytes?: bigint;
  readonly compressionCodec: 'zstd' | 'snappy' | 'gzip' | 'uncompressed' | 'lz4_raw' | 'brotli';
}

const DEFAULT_TARGET_FILE_SIZE = 512n * 1024n * 1024n;
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
  };
}

function positiveBytes(properties: Readonly<Record<string, string>>, key: string, fallback: bigint): bigint {
  return optionalPositiveBytes(properties, key) ?? fallback;
}

function optionalPositiveBytes(properties: Readonly<Record<string, string>>, key: string): bigint | undefined {
  const text = properties[key];
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(text)) {
    throw new InvalidInputError(`Table property ${key}: "${text}" is not a positive number of bytes`, {
      context: { property: key },
    });
  }
  return BigInt(text);
}
