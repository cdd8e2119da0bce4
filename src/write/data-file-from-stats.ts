/**
 * The DataFile of one file DuckDB wrote: counts and size from its RETURN_STATS row, metrics
 * (data-file-metrics.ts) per the table's metrics modes, and the partition tuple it belongs to.
 */
import { DataFileContent, type DataFile, type PartitionValues } from '../iceberg/data-file.js';
import type { Schema } from '../iceberg/types.js';
import { dataFileMetrics, type FileNanStats, type MetricsConfig } from './data-file-metrics.js';
import type { CopyStatsRow } from './parquet-copy.js';

export interface StatsDataFileArgs {
  readonly schema: Schema;
  readonly metrics: MetricsConfig;
  readonly specId: number;
  readonly partition: PartitionValues;
  readonly row: CopyStatsRow;
  readonly location: string;
  /** The file's NaN counts (nan-counts.ts); absent when it holds no NaN. */
  readonly nanStats?: FileNanStats;
}

export function dataFileFromStats(args: StatsDataFileArgs): DataFile {
  return {
    content: DataFileContent.Data,
    filePath: args.location,
    fileFormat: 'PARQUET',
    specId: args.specId,
    partition: args.partition,
    recordCount: BigInt(args.row.count),
    fileSizeInBytes: BigInt(args.row.file_size_bytes),
    ...dataFileMetrics(args.schema, args.metrics, args.row.column_statistics, args.nanStats),
  };
}
