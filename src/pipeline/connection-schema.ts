/**
 * The wire shape of the spec's `catalog` and `storage` blocks: where the pipeline's tables live
 * (embedded SQL catalog, REST catalog, AWS Glue) and how data files on S3 are reached.
 *
 * Secrets are never written in the spec: a field named `X_env` holds the NAME of the environment
 * variable that holds X, and an inline `token:`, `client_secret:`, … is an error saying so. Other
 * text values may reference variables as `${NAME}` (checked here, substituted when the catalog is
 * opened, see resolve-connection.ts).
 */
import { z } from 'zod';
import { ENV_NAME, templateReferences } from './env-template.js';
import { strictObject } from './strict-object.js';

export const CATALOG_TYPES = ['sql', 'rest', 'glue'] as const;
export const AUTH_TYPES = ['bearer', 'oauth2', 'sigv4'] as const;
/** What a REST catalog is asked to hand out for the tables' files (X-Iceberg-Access-Delegation). */
export const ACCESS_DELEGATIONS = ['vended-credentials'] as const;

/** A text value that may contain `${NAME}` references. */
const text = (field: string) =>
  z
    .string({ error: `${field} must be a text value` })
    .refine((s) => s.trim() !== '', `${field} must not be empty`)
    .superRefine((s, ctx) => {
      const references = templateReferences(s);
      if ('problem' in references) ctx.addIssue({ code: 'custom', message: `${field} has ${references.problem}`, input: s });
    });

/** The name of an environment variable holding a secret (the value is never echoed in errors). */
const envName = (field: string) =>
  z
    .string({ error: `${field} must be the name of an environment variable` })
    .regex(
      ENV_NAME,
      `${field} must be the NAME of an environment variable (upper-case letters, digits and "_"), not the secret itself`,
    );

const secretHint = (key: string): string =>
  `"${key}" must not be written in the spec: put it in an environment variable and name that variable with ${key}_env`;

const SECRET_WORDS = ['password', 'secret', 'credential', 'credentials', 'api_key'];
const secretWordHints = Object.fromEntries(
  SECRET_WORDS.map((key) => [
    key,
    `"${key}": secrets are never written in the spec; name the environment variable that holds it with a *_env field`,
  ]),
);

function hintsFor(secrets: readonly string[], otherTypes: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...secretWordHints, ...Object.fromEntries(secrets.map((key) => [key, secretHint(key)])), ...otherTypes };
}

/** A timeout in milliseconds, at least 100 ms and at most an hour (YAML reads whole numbers as bigint). */
const timeoutMs = (field: string) => {
  const error = `${field} must be a whole number of milliseconds`;
  return z
    .union([z.bigint(), z.number()], { error })
    .transform(Number)
    .pipe(z.int({ error }).min(100, `${field} must be at least 100`).max(3_600_000, `${field} must be at most 3600000 (an hour)`));
};

const awsKeyFields = {
  access_key_id_env: envName('access_key_id_env').optional(),
  secret_access_key_env: envName('secret_access_key_env').optional(),
  session_token_env: envName('session_token_env').optional(),
};
const AWS_SECRETS = ['access_key_id', 'secret_access_key', 'session_token'];

type AwsKeyNames = { readonly [K in keyof typeof awsKeyFields]?: string | undefined };

/** Both keys or neither: one without the other is a half-configured credential. */
function checkKeyPair(value: AwsKeyNames, ctx: z.RefinementCtx): void {
  const hasId = value.access_key_id_env !== undefined;
  const hasSecret = value.secret_access_key_env !== undefined;
  const problem = (field: keyof AwsKeyNames, message: string): void => ctx.addIssue({ code: 'custom', path: [field], message });
  if (hasId && !hasSecret) problem('access_key_id_env', 'access_key_id_env needs secret_access_key_env beside it');
  if (hasSecret && !hasId) problem('secret_access_key_env', 'secret_access_key_env needs access_key_id_env beside it');
  if (value.session_token_env !== undefined && !(hasId && hasSecret)) {
    problem('session_token_env', 'session_token_env needs access_key_id_env and secret_access_key_env beside it');
  }
}

const BearerAuthWire = strictObject(
  { type: z.literal('bearer'), token_env: envName('token_env') },
  'bearer auth',
  hintsFor(['token']),
);

const OAuth2AuthWire = strictObject(
  {
    type: z.literal('oauth2'),
    client_id_env: envName('client_id_env'),
    client_secret_env: envName('client_secret_env'),
    token_uri: text('token_uri').optional(),
    scope: text('scope').optional(),
  },
  'oauth2 auth',
  hintsFor(['client_id', 'client_secret', 'token']),
);

const SigV4AuthWire = strictObject(
  { type: z.literal('sigv4'), region: text('region'), service: text('service').optional(), ...awsKeyFields },
  'sigv4 auth',
  hintsFor([...AWS_SECRETS, 'token']),
).superRefine(checkKeyPair);

const discriminated = (what: string, types: readonly string[]) => (issue: z.core.$ZodRawIssue) => {
  if (issue.code !== 'invalid_union' && issue.code !== 'invalid_type') return undefined;
  const input = issue.input;
  if (issue.code === 'invalid_union' && typeof input === 'object' && input !== null && !('type' in input)) {
    return `missing required field "type" (${types.join(', ')})`;
  }
  if (issue.code === 'invalid_union') {
    const written = typeof input === 'object' && input !== null && 'type' in input ? `, got ${JSON.stringify(input.type)}` : '';
    return `type must be one of: ${types.join(', ')}${written}`;
  }
  return `${what} must be a mapping with a type (${types.join(', ')})`;
};

export const RestAuthWire = z.discriminatedUnion('type', [BearerAuthWire, OAuth2AuthWire, SigV4AuthWire], {
  error: discriminated('auth', AUTH_TYPES),
});

/** Fields that exist only for some catalog types, for "uri is a field of a rest catalog" hints. */
const FIELD_TYPES: Readonly<Record<string, readonly string[]>> = {
  uri: ['rest'],
  auth: ['rest'],
  region: ['glue'],
  endpoint: ['glue'],
  ...Object.fromEntries(Object.keys(awsKeyFields).map((key) => [key, ['glue']])),
};

function otherTypeHints(type: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(FIELD_TYPES)
      .filter(([, types]) => !types.includes(type))
      .map(([key, types]) => [key, `"${key}" is a field of a ${types.join(' or ')} catalog, not of a ${type} catalog`]),
  );
}

/** Secrets written on the catalog itself: where their `*_env` field actually lives. */
function catalogSecretHints(type: string): Record<string, string> {
  const inline = (key: string, where: string): string =>
    `"${key}" must not be written in the spec: put it in an environment variable and name that variable in ${where}`;
  const aws = type === 'glue' ? {} : Object.fromEntries(AWS_SECRETS.map((key) => [key, inline(key, `storage.s3 (${key}_env: NAME)`)]));
  return {
    token: inline('token', 'auth: { type: bearer, token_env: NAME }'),
    client_id: inline('client_id', 'auth: { type: oauth2, client_id_env: NAME, client_secret_env: NAME }'),
    client_secret: inline('client_secret', 'auth: { type: oauth2, client_id_env: NAME, client_secret_env: NAME }'),
    ...aws,
  };
}

const SqlCatalogWire = strictObject(
  { type: z.literal('sql'), name: text('name').optional(), warehouse: text('warehouse').optional() },
  'a sql catalog',
  { ...hintsFor([], otherTypeHints('sql')), ...catalogSecretHints('sql') },
);

/** Catalog property names that hold secrets (Iceberg's `token`, `credential`, `*.secret-access-key`, …). */
const SECRET_PROPERTY = /(token|credential|secret|password|api[-_.]?key|access[-_.]key)/i;

/**
 * Client-side catalog properties (`/v1/config` merges them between the server's defaults and
 * overrides): text values that may use `${NAME}`; a secret is refused, its value never echoed.
 */
const catalogProperties = z
  .record(z.string(), z.unknown(), { error: 'properties must be a mapping of property names to text values' })
  .superRefine((properties, ctx) => {
    for (const [key, value] of Object.entries(properties)) {
      if (SECRET_PROPERTY.test(key)) {
        const message = `"${key}": secrets are never written in the spec; use auth (token_env, client_secret_env) or storage.s3 (*_env fields)`;
        ctx.addIssue({ code: 'custom', path: [key], message });
        continue;
      }
      const parsed = text(key).safeParse(value);
      for (const issue of parsed.error?.issues ?? []) ctx.addIssue({ code: 'custom', path: [key], message: issue.message });
    }
  })
  .transform((properties) => properties as Record<string, string>);

const RestCatalogWire = strictObject(
  {
    type: z.literal('rest'),
    name: text('name').optional(),
    uri: text('uri'),
    warehouse: text('warehouse').optional(),
    /** The client's `prefix` for `/v1/{prefix}/…`, for servers that advertise none. */
    prefix: text('prefix').optional(),
    properties: catalogProperties.optional(),
    auth: RestAuthWire.optional(),
    access_delegation: z
      .enum(ACCESS_DELEGATIONS, { error: `access_delegation must be one of: ${ACCESS_DELEGATIONS.join(', ')}` })
      .optional(),
    /** Each request to the catalog fails after this long without its answer (default 60 s). */
    request_timeout_ms: timeoutMs('request_timeout_ms').optional(),
  },
  'a rest catalog',
  {
    ...hintsFor([], otherTypeHints('rest')),
    ...catalogSecretHints('rest'),
    region: '"region" of a rest catalog belongs under auth (type: sigv4)',
  },
).superRefine((wire, ctx) => {
  if (wire.prefix !== undefined && wire.properties?.['prefix'] !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['properties', 'prefix'], message: 'prefix is already set by catalog.prefix; write it once' });
  }
});

const GlueCatalogWire = strictObject(
  {
    type: z.literal('glue'),
    name: text('name').optional(),
    warehouse: text('warehouse'),
    region: text('region'),
    endpoint: text('endpoint').optional(),
    ...awsKeyFields,
  },
  'a glue catalog',
  { ...hintsFor(AWS_SECRETS, otherTypeHints('glue')), ...catalogSecretHints('glue') },
).superRefine(checkKeyPair);

export const CatalogWire = z.discriminatedUnion('type', [SqlCatalogWire, RestCatalogWire, GlueCatalogWire], {
  error: discriminated('catalog', CATALOG_TYPES),
});
export type CatalogWire = z.output<typeof CatalogWire>;

const S3StorageWire = strictObject(
  {
    endpoint: text('endpoint').optional(),
    region: text('region'),
    path_style: z.boolean({ error: 'path_style must be true or false' }).default(false),
    /** A request whose connection is not made within this fails and is retried (default 5 s). */
    connect_timeout_ms: timeoutMs('connect_timeout_ms').optional(),
    /** A request whose connection carries nothing for this long fails and is retried (default 30 s). */
    idle_timeout_ms: timeoutMs('idle_timeout_ms').optional(),
    ...awsKeyFields,
  },
  'storage.s3',
  hintsFor(AWS_SECRETS),
).superRefine(checkKeyPair);

export const StorageWire = strictObject({ s3: S3StorageWire.optional() }, 'storage');
export type StorageWire = z.output<typeof StorageWire>;
