/**
 * The pipeline's catalog and storage blocks as Spark settings of an Iceberg SparkCatalog. Plain
 * values (`${NAME}` substituted) go into spark-pipeline.yml; secrets never do: they stay as the
 * names of their environment variables, and the Spark backend passes them with `--conf` when it
 * starts Spark.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidInputError } from '../errors.js';
import type { AwsKeysSpec, CatalogSpec, SecretRef, SpecText, StorageSpec } from '../pipeline/connection-spec.js';
import { substituteEnv, type Environment } from '../pipeline/env-template.js';

/** A Spark setting whose value is read from environment variables when Spark starts. */
export interface SecretConf {
  readonly key: string;
  /** `${NAME}` references, e.g. `${CLIENT_ID}:${CLIENT_SECRET}`. */
  readonly template: string;
}

export interface SparkCatalogConfig {
  /** The Spark catalog name tables are qualified with. */
  readonly name: string;
  readonly description: string;
  readonly configuration: Readonly<Record<string, string>>;
  readonly secretConfs: readonly SecretConf[];
  /** S3FileIO / Glue: iceberg-aws-bundle must be on Spark's classpath. */
  readonly needsAwsBundle: boolean;
  /** What the lowering report says of the tables; default: Iceberg tables needing the runtime. */
  readonly tablesNote?: string;
}

export interface CatalogOverrides {
  readonly warehouse?: string;
  readonly catalogName?: string;
}

export const DEFAULT_CATALOG_NAME = 'default';
const EMBEDDED_WAREHOUSE = './warehouse';
const EMBEDDED_CATALOG_FILE = 'catalog.db';

export function sparkCatalogConfig(
  catalog: CatalogSpec,
  storage: StorageSpec,
  specPath: string,
  env: Environment,
  overrides: CatalogOverrides = {},
): SparkCatalogConfig {
  const value = (text: SpecText): string => {
    const result = substituteEnv(text.template, env);
    if ('missing' in result) {
      throw new InvalidInputError(`${text.at.file}:${text.at.line}:${text.at.column}: ${text.at.field}: environment variable ${result.missing} is not set`, {
        context: { field: text.at.field, variable: result.missing },
      });
    }
    return result.value;
  };
  const name = overrides.catalogName ?? (catalog.name === undefined ? DEFAULT_CATALOG_NAME : value(catalog.name));
  const prefix = `spark.sql.catalog.${name}`;
  const conf: Record<string, string> = { [prefix]: 'org.apache.iceberg.spark.SparkCatalog' };
  const secrets: SecretConf[] = [];
  const secret = (key: string, ref: SecretRef): void => void secrets.push({ key: `${prefix}.${key}`, template: `\${${ref.variable}}` });
  const awsKeys = (keyPrefix: string, keys: AwsKeysSpec | undefined): void => {
    if (keys === undefined) return;
    secret(`${keyPrefix}access-key-id`, keys.accessKeyId);
    secret(`${keyPrefix}secret-access-key`, keys.secretAccessKey);
    if (keys.sessionToken !== undefined) secret(`${keyPrefix}session-token`, keys.sessionToken);
  };
  let description: string;
  let needsAwsBundle = false;
  switch (catalog.type) {
    case 'sql': {
      const folder = path.dirname(specPath);
      const warehouse = path.resolve(
        overrides.warehouse ?? (catalog.warehouse === undefined ? EMBEDDED_WAREHOUSE : path.resolve(folder, value(catalog.warehouse))),
      );
      conf[`${prefix}.type`] = 'jdbc';
      conf[`${prefix}.uri`] = `jdbc:sqlite:${path.join(warehouse, EMBEDDED_CATALOG_FILE)}`;
      conf[`${prefix}.warehouse`] = pathToFileURL(warehouse).href;
      description = `${name} (Iceberg JDBC catalog on ${path.join(warehouse, EMBEDDED_CATALOG_FILE)})`;
      break;
    }
    case 'rest': {
      const uri = value(catalog.uri);
      conf[`${prefix}.type`] = 'rest';
      conf[`${prefix}.uri`] = uri;
      if (catalog.warehouse !== undefined) conf[`${prefix}.warehouse`] = overrides.warehouse ?? value(catalog.warehouse);
      // Client properties: Iceberg's REST client merges them between the server's defaults and overrides too.
      for (const [key, text] of Object.entries(catalog.properties ?? {})) conf[`${prefix}.${key}`] = value(text);
      if (catalog.prefix !== undefined) conf[`${prefix}.prefix`] = value(catalog.prefix);
      if (catalog.accessDelegation !== undefined) conf[`${prefix}.header.X-Iceberg-Access-Delegation`] = catalog.accessDelegation;
      const auth = catalog.auth;
      if (auth?.type === 'bearer') secret('token', auth.token);
      if (auth?.type === 'oauth2') {
        secrets.push({ key: `${prefix}.credential`, template: `\${${auth.clientId.variable}}:\${${auth.clientSecret.variable}}` });
        if (auth.tokenUri !== undefined) conf[`${prefix}.oauth2-server-uri`] = value(auth.tokenUri);
        if (auth.scope !== undefined) conf[`${prefix}.scope`] = value(auth.scope);
      }
      if (auth?.type === 'sigv4') {
        conf[`${prefix}.rest.sigv4-enabled`] = 'true';
        conf[`${prefix}.rest.signing-region`] = value(auth.region);
        conf[`${prefix}.rest.signing-name`] = auth.service === undefined ? 'glue' : value(auth.service);
        awsKeys('rest.', auth.keys);
        needsAwsBundle = true;
      }
      description = `${name} (Iceberg REST catalog at ${uri})`;
      break;
    }
    case 'glue': {
      conf[`${prefix}.type`] = 'glue';
      conf[`${prefix}.warehouse`] = overrides.warehouse ?? value(catalog.warehouse);
      conf[`${prefix}.client.region`] = value(catalog.region);
      if (catalog.endpoint !== undefined) conf[`${prefix}.glue.endpoint`] = value(catalog.endpoint);
      awsKeys('client.', catalog.keys);
      needsAwsBundle = true;
      description = `${name} (AWS Glue Data Catalog in ${value(catalog.region)})`;
      break;
    }
  }
  const s3 = storage.s3;
  if (s3 !== undefined) {
    conf[`${prefix}.io-impl`] = 'org.apache.iceberg.aws.s3.S3FileIO';
    if (s3.endpoint !== undefined) conf[`${prefix}.s3.endpoint`] = value(s3.endpoint);
    conf[`${prefix}.s3.path-style-access`] = String(s3.pathStyle);
    conf[`${prefix}.client.region`] = value(s3.region);
    awsKeys('s3.', s3.keys);
    needsAwsBundle = true;
  }
  return { name, description, configuration: conf, secretConfs: secrets, needsAwsBundle };
}

/**
 * Any other Spark catalog plugin (a TableCatalog class on Spark's classpath) under `name`, e.g. a
 * table format with its own catalog. AUTO CDC needs one with row-level operations (MERGE); Spark's
 * session catalog with its built-in Parquet tables has none (AUTOCDC_TARGET_DOES_NOT_SUPPORT_MERGE,
 * measured on 4.3), and no Iceberg runtime exists for Spark 4.2+.
 */
export function pluginCatalogConfig(name: string, pluginClass: string): SparkCatalogConfig {
  return {
    name,
    description: `${name} (Spark catalog plugin ${pluginClass})`,
    configuration: { [`spark.sql.catalog.${name}`]: pluginClass },
    secretConfs: [],
    needsAwsBundle: false,
    tablesNote: `tables are tables of Spark catalog ${name} (${pluginClass}), which must be on Spark's classpath`,
  };
}
