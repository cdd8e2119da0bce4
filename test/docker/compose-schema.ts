/**
 * The part of the Compose Specification (compose-spec/compose-spec, schema/compose-spec.json) that
 * docker/compose.yaml uses, as zod schemas with the spec's key names, value shapes and enums.
 * Objects are strict: a misspelt key fails here as it fails in `docker compose config`. Keys
 * outside this subset fail too — extend the subset when compose.yaml starts using them.
 *
 * Plus Compose's variable interpolation (`${VAR}`, `${VAR:-default}`, `${VAR-default}`, `$$`), so
 * tests can check the file as Compose renders it with no variables set.
 */
import { z } from 'zod';

// Go durations as Compose accepts them: 1m30s, 500ms, 10s.
const duration = z.string().regex(/^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/, 'a duration like 10s or 1m30s');

const listOrDict = z.union([
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  z.array(z.string()),
]);

const command = z.union([z.string(), z.array(z.string())]);

const healthcheck = z.strictObject({
  test: z.union([z.string(), z.array(z.string()).min(1)]),
  interval: duration.optional(),
  timeout: duration.optional(),
  retries: z.number().int().nonnegative().optional(),
  start_period: duration.optional(),
  start_interval: duration.optional(),
  disable: z.boolean().optional(),
});

const build = z.union([
  z.string(),
  z.strictObject({
    context: z.string(),
    dockerfile: z.string().optional(),
    args: listOrDict.optional(),
    target: z.string().optional(),
  }),
]);

const port = z.union([
  z.number(),
  z.string(),
  z.strictObject({
    target: z.union([z.number().int(), z.string()]),
    published: z.union([z.number().int(), z.string()]).optional(),
    host_ip: z.string().optional(),
    protocol: z.enum(['tcp', 'udp']).optional(),
    mode: z.enum(['host', 'ingress']).optional(),
    name: z.string().optional(),
  }),
]);

const serviceName = z.string().regex(/^[a-zA-Z0-9._-]+$/);

export const dependsOnCondition = z.enum(['service_started', 'service_healthy', 'service_completed_successfully']);

const dependsOn = z.union([
  z.array(serviceName),
  z.record(
    serviceName,
    z.strictObject({
      condition: dependsOnCondition,
      restart: z.boolean().optional(),
      required: z.boolean().optional(),
    }),
  ),
]);

const volumeMount = z.union([
  z.string(),
  z.strictObject({
    type: z.enum(['bind', 'volume', 'tmpfs', 'cluster', 'npipe', 'image']),
    source: z.string().optional(),
    target: z.string(),
    read_only: z.boolean().optional(),
  }),
]);

export const serviceSchema = z
  .strictObject({
    image: z.string().optional(),
    build: build.optional(),
    command: command.optional(),
    entrypoint: command.optional(),
    environment: listOrDict.optional(),
    ports: z.array(port).optional(),
    volumes: z.array(volumeMount).optional(),
    depends_on: dependsOn.optional(),
    healthcheck: healthcheck.optional(),
    restart: z.enum(['no', 'always', 'on-failure', 'unless-stopped']).optional(),
    working_dir: z.string().optional(),
    user: z.string().optional(),
    profiles: z.array(z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/)).optional(),
  })
  .refine((s) => s.image !== undefined || s.build !== undefined, 'a service needs image or build');

export const composeSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/).optional(),
  services: z.record(serviceName, serviceSchema),
  volumes: z
    .record(
      z.string().regex(/^[a-zA-Z0-9._-]+$/),
      z.union([z.null(), z.strictObject({ name: z.string().optional(), driver: z.string().optional(), external: z.boolean().optional() })]),
    )
    .optional(),
});

export type ComposeFile = z.infer<typeof composeSchema>;
export type ComposeService = z.infer<typeof serviceSchema>;

/** Top-level `x-*` keys are extension fields: allowed by the spec, ignored by Compose. */
export function withoutExtensions(document: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document).filter(([key]) => !key.startsWith('x-')));
}

export class InterpolationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InterpolationError';
  }
}

/** Compose interpolation of one string against `env`; a variable with no value and no default throws. */
export function interpolate(value: string, env: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced: string | undefined, op: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    if (match === '$$') return '$';
    const name = braced ?? bare ?? '';
    const found = env[name];
    if (op === ':-') return found !== undefined && found !== '' ? found : (fallback ?? '');
    if (op === '-') return found ?? fallback ?? '';
    if (found === undefined) throw new InterpolationError(`variable ${name} has no value and no default`);
    return found;
  });
}

/** Every string in a parsed YAML tree interpolated (keys are left as they are, as Compose does). */
export function interpolateTree(node: unknown, env: Readonly<Record<string, string>>): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((item) => interpolateTree(item, env));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, interpolateTree(item, env)]));
  }
  return node;
}

export interface PublishedPort {
  readonly hostIp: string | undefined;
  readonly published: string | undefined;
  readonly target: string;
}

/** Short (`[HOST_IP:][HOST:]CONTAINER[/PROTO]`) or long port syntax, normalised. */
export function publishedPort(entry: z.infer<typeof port>): PublishedPort {
  if (typeof entry === 'number') return { hostIp: undefined, published: undefined, target: String(entry) };
  if (typeof entry === 'object') {
    return { hostIp: entry.host_ip, published: entry.published?.toString(), target: String(entry.target) };
  }
  const withoutProto = entry.replace(/\/(tcp|udp)$/, '');
  // An IPv6 host IP is bracketed: [::1]:9000:9000.
  const v6 = /^\[([^\]]+)\]:(.*)$/.exec(withoutProto);
  const parts = v6 ? [v6[1] ?? '', ...(v6[2] ?? '').split(':')] : withoutProto.split(':');
  if (parts.length === 3) return { hostIp: parts[0], published: parts[1], target: parts[2] ?? '' };
  if (parts.length === 2) return { hostIp: undefined, published: parts[0], target: parts[1] ?? '' };
  return { hostIp: undefined, published: undefined, target: parts[0] ?? '' };
}
