/**
 * The Spark release a lowering targets, and what its Declarative Pipelines can express. Facts
 * measured with `spark-pipelines`: 4.1 accepts MV / ST / FLOW / TEMPORARY VIEW and the SQL
 * WATERMARK clause; 4.2 adds AUTO CDC SCD type 1 in Python (`dp.create_auto_cdc_flow`; its SQL
 * parser rejects `AS AUTO CDC`, which 4.3 parses), without IGNORE NULL UPDATES and APPLY AS
 * TRUNCATE. AUTO CDC needs a target catalog with row-level operations (MERGE).
 */
import { InvalidInputError } from '../errors.js';

export interface SparkVersion {
  readonly major: number;
  readonly minor: number;
  /** As given, e.g. "4.1" or "4.3.0". */
  readonly text: string;
}

export const DEFAULT_SPARK_VERSION = '4.1';

const VERSION = /^(\d+)\.(\d+)(?:\.(\d+))?$/;

export function parseSparkVersion(text: string): SparkVersion {
  const match = VERSION.exec(text.trim());
  if (match === null) throw new InvalidInputError(`--spark-version must look like 4.1 or 4.3.0, got "${text}"`, { context: { sparkVersion: text } });
  const version = { major: Number(match[1]), minor: Number(match[2]), text: text.trim() };
  if (!atLeast(version, 4, 1)) {
    throw new InvalidInputError(`Spark Declarative Pipelines need Spark 4.1 or later; --spark-version is ${version.text}`, { context: { sparkVersion: text } });
  }
  return version;
}

export function atLeast(version: SparkVersion, major: number, minor: number): boolean {
  return version.major > major || (version.major === major && version.minor >= minor);
}

/** What the target's SDP can express, as far as the lowering uses it. */
export interface SdpFeatures {
  /** `dp.create_auto_cdc_flow(…, stored_as_scd_type=1)`. */
  readonly autoCdcScd1: boolean;
}

export function sdpFeatures(version: SparkVersion): SdpFeatures {
  return { autoCdcScd1: atLeast(version, 4, 2) };
}
