/**
 * The catalog a pipeline's `catalog` block names, with the FileIO its tables' files go through:
 * the embedded SQLite catalog (the default), a REST catalog, or AWS Glue. The environment is read
 * here, once: `${NAME}` references and the secrets `*_env` fields name (resolve-connection.ts).
 * Each catalog kind's client (REST, Glue and the AWS SDK, S3) is imported when that kind is
 * opened: the embedded default loads none of them.
 */
import type { GlueClient } from '@aws-sdk/client-glue';
import type { Catalog } from '../../catalog/catalog.js';
import type { RestAuthOptions } from '../../catalog/rest/auth.js';
import { LocalFileIO } from '../../connectors/storage/local-file-io.js';
import { isS3Location } from '../../connectors/storage/s3-location.js';
import type { S3FileIOOptions } from '../../connectors/storage/s3-options.js';
import { ThundError } from '../errors.js';
import type { FileIO } from '../iceberg/file-io.js';
import { DEFAULT_CATALOG } from '../pipeline/connection-spec.js';
import type { Environment } from '../pipeline/env-template.js';
import {
  resolveConnection,
  type AwsKeys,
  type ConnectionSource,
  type ResolvedCatalog,
  type ResolvedRestAuth,
  type ResolvedS3Storage,
} from '../pipeline/resolve-connection.js';
import { openEmbeddedCatalog } from './embedded-catalog.js';

/** Command-line flags, which win over the spec's `catalog.warehouse` and `catalog.name`. */
export interface CatalogOverrides {
  /** sql: a directory (relative to the working directory); rest: the warehouse sent to /v1/config; glue: the S3 root. */
  readonly warehouse?: string;
  readonly catalogName?: string;
  /** Open only an embedded catalog that exists already (inspect reads; it never creates a warehouse). */
  readonly existingOnly?: boolean;
}

export interface OpenedCatalog {
  readonly catalog: Catalog;
  /** Where table files are read and written. */
  readonly io: FileIO;
  /** S3 settings for data files and s3:// sources (storage.s3), when given. */
  readonly s3?: S3FileIOOptions;
  /** One line for people: `warehouse: /abs/dir` or `catalog: rest http://…`. */
  readonly description: string;
  /** The embedded catalog's warehouse directory (local file paths are shown relative to it). */
  readonly warehousePath?: string;
  close(): Promise<void>;
}

/** Without a source (no pipeline given), the embedded default. */
export async function openCatalog(
  source: ConnectionSource | undefined,
  overrides: CatalogOverrides = {},
  env: Environment = process.env,
): Promise<OpenedCatalog> {
  const resolved = resolveConnection(source ?? { catalog: DEFAULT_CATALOG, storage: {}, specPath: 'pipeline.yaml' }, env);
  const catalog = withOverrides(resolved.catalog, overrides);
  const s3 = resolved.s3 === undefined ? undefined : s3Options(resolved.s3);
  const withS3 = s3 === undefined ? {} : { s3 };
  switch (catalog.type) {
    case 'sql': {
      const embedded = openEmbeddedCatalog({
        ...(catalog.warehousePath === undefined ? {} : { warehouse: catalog.warehousePath }),
        ...(catalog.name === undefined ? {} : { catalogName: catalog.name }),
        existingOnly: overrides.existingOnly === true,
      });
      return {
        catalog: embedded.catalog,
        io: embedded.io,
        ...withS3,
        description: `warehouse: ${embedded.warehousePath}`,
        warehousePath: embedded.warehousePath,
        close: () => embedded.catalog.close(),
      };
    }
    case 'rest': {
      const [{ RestCatalog }, { s3FileIOFactory }] = await Promise.all([
        import('../../catalog/rest/rest-catalog.js'),
        import('../../connectors/storage/s3-file-io-factory.js'),
      ]);
      const io = s3 === undefined ? new LocalFileIO() : await s3FileIO(s3);
      const aws = new AwsCredentialChain(catalog.auth?.type === 'sigv4' ? catalog.auth.region : undefined);
      try {
        const rest = await RestCatalog.connect({
          uri: catalog.uri,
          io,
          ...(catalog.warehouse === undefined ? {} : { warehouse: catalog.warehouse }),
          ...(catalog.properties === undefined ? {} : { properties: catalog.properties }),
          ...(catalog.name === undefined ? {} : { name: catalog.name }),
          ...(catalog.auth === undefined ? {} : { auth: restAuth(catalog.auth, aws) }),
          ...(catalog.accessDelegation === undefined ? {} : { accessDelegation: catalog.accessDelegation }),
          ...(catalog.requestTimeoutMs === undefined ? {} : { timeoutMs: catalog.requestTimeoutMs }),
          // Vended keys reach the same store: storage.s3's endpoint, region and path style where the catalog names none.
          fileIOFactory: s3FileIOFactory(s3 === undefined ? {} : withoutKeys(s3)),
        });
        const where = catalog.warehouse === undefined ? '' : ` (warehouse ${catalog.warehouse})`;
        return { catalog: rest, io, ...withS3, description: `catalog: rest ${catalog.uri}${where}`, close: () => closeAll(rest, io, aws) };
      } catch (error) {
        await closeAll(undefined, io, aws);
        throw connectError(catalog.uri, error);
      }
    }
    case 'glue': {
      // Glue keeps tables on S3 in its own region: without storage.s3, S3 in that region with the SDK's default credentials.
      const { GlueCatalog } = await import('../../catalog/glue/glue-catalog.js');
      const io = isS3Location(catalog.warehouse) ? await s3FileIO(s3 ?? { region: catalog.region }) : new LocalFileIO();
      const glue = new GlueCatalog({
        warehouse: catalog.warehouse,
        io,
        ...(catalog.name === undefined ? {} : { name: catalog.name }),
        glue: {
          region: catalog.region,
          ...(catalog.endpoint === undefined ? {} : { endpoint: catalog.endpoint }),
          ...(catalog.keys === undefined ? {} : { credentials: catalog.keys }),
        },
      });
      return {
        catalog: glue,
        io,
        ...withS3,
        description: `catalog: glue ${catalog.region} (warehouse ${catalog.warehouse})`,
        close: () => closeAll(glue, io),
      };
    }
  }
}

async function s3FileIO(options: S3FileIOOptions): Promise<FileIO> {
  const { S3FileIO } = await import('../../connectors/storage/s3-file-io.js');
  return new S3FileIO(options);
}

/** The client's own errors name the request, not the catalog: add where it was looking. */
function connectError(uri: string, error: unknown): unknown {
  if (!(error instanceof ThundError)) return error;
  return new ThundError(error.code, `Cannot open the REST catalog at ${uri}: ${error.message}`, {
    cause: error,
    retryable: error.retryable,
    context: { ...error.context, uri },
  });
}

function withOverrides(catalog: ResolvedCatalog, overrides: CatalogOverrides): ResolvedCatalog {
  const name = overrides.catalogName === undefined ? {} : { name: overrides.catalogName };
  if (overrides.warehouse === undefined) return { ...catalog, ...name };
  // The flag is relative to the working directory (the spec's own value to the spec's folder).
  if (catalog.type === 'sql') return { ...catalog, ...name, warehousePath: overrides.warehouse };
  return { ...catalog, ...name, warehouse: overrides.warehouse };
}

function s3Options(s3: ResolvedS3Storage): S3FileIOOptions {
  return {
    region: s3.region,
    forcePathStyle: s3.pathStyle,
    ...(s3.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: s3.connectTimeoutMs }),
    ...(s3.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: s3.idleTimeoutMs }),
    ...(s3.endpoint === undefined ? {} : { endpoint: s3.endpoint }),
    ...(s3.keys === undefined ? {} : { credentials: s3.keys }),
  };
}

function withoutKeys(s3: S3FileIOOptions): Omit<S3FileIOOptions, 'credentials'> {
  const { credentials, ...settings } = s3;
  return settings;
}

function restAuth(auth: ResolvedRestAuth, aws: AwsCredentialChain): RestAuthOptions {
  switch (auth.type) {
    case 'bearer':
      return { type: 'bearer', token: auth.token };
    case 'oauth2':
      return {
        type: 'oauth2',
        clientId: auth.clientId,
        clientSecret: auth.clientSecret,
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
        ...(auth.tokenUri === undefined ? {} : { serverUri: auth.tokenUri }),
      };
    case 'sigv4':
      return {
        type: 'sigv4',
        region: auth.region,
        ...(auth.service === undefined ? {} : { service: auth.service }),
        credentials: auth.keys ?? aws.provider(),
      };
  }
}

/**
 * The AWS SDK's default credential chain (environment, profile, SSO, instance role) for SigV4
 * signing without keys in the spec, taken from an SDK client's resolved configuration so no
 * extra package is needed. Created only when asked for.
 */
class AwsCredentialChain {
  private client: Promise<GlueClient> | undefined;

  constructor(private readonly region: string | undefined) {}

  provider(): () => Promise<AwsKeys> {
    return async () => {
      this.client ??= import('@aws-sdk/client-glue').then(({ GlueClient }) => new GlueClient(this.region === undefined ? {} : { region: this.region }));
      const identity = await (await this.client).config.credentials();
      return {
        accessKeyId: identity.accessKeyId,
        secretAccessKey: identity.secretAccessKey,
        ...(identity.sessionToken === undefined ? {} : { sessionToken: identity.sessionToken }),
      };
    };
  }

  async close(): Promise<void> {
    (await this.client)?.destroy();
  }
}

interface Closable {
  close(): void | Promise<void>;
}

async function closeAll(catalog: Catalog | undefined, ...others: (FileIO | Closable)[]): Promise<void> {
  try {
    await catalog?.close();
  } finally {
    for (const other of others) if ('close' in other && typeof other.close === 'function') await other.close();
  }
}
