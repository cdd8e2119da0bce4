/**
 * docker/compose.yaml checked without a Docker engine: the Compose Specification subset in
 * compose-schema.ts, then the stack's own rules in compose-rules.ts (pinned images, loopback-only
 * ports, existing dependencies with health-based conditions, files it mounts or builds from).
 * Broken variants of the file prove each check can fail. Where the docker CLI has the compose
 * plugin, `docker compose config` must accept the file too.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeSchema, interpolate, interpolateTree, withoutExtensions, type ComposeFile, type ComposeService } from './compose-schema.js';
import {
  buildOf,
  dependencies,
  dependencyProblems,
  environment,
  imageProblems,
  mountProblems,
  portProblems,
  readProperties,
} from './compose-rules.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCKER_DIR = join(REPO, 'docker');
const COMPOSE_PATH = join(DOCKER_DIR, 'compose.yaml');

function loadRaw(): Record<string, unknown> {
  // Compose reads YAML merge keys (`<<: *anchor`); the yaml package needs them switched on.
  const document: unknown = parse(readFileSync(COMPOSE_PATH, 'utf8'), { merge: true });
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`${COMPOSE_PATH}: not a YAML mapping`);
  }
  return document as Record<string, unknown>;
}

/** The file as Compose renders it with the given variables (none: every default applies). */
function render(raw: Record<string, unknown>, env: Record<string, string> = {}): ComposeFile {
  return composeSchema.parse(interpolateTree(withoutExtensions(raw), env));
}

function service(compose: ComposeFile, name: string): ComposeService {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`compose.yaml has no service ${name}`);
  return found;
}

/** A deep copy of the real file with one service changed. */
function variant(change: (services: Record<string, Record<string, unknown>>) => void): ComposeFile {
  const raw = structuredClone(withoutExtensions(loadRaw()));
  change(raw['services'] as Record<string, Record<string, unknown>>);
  return render(raw);
}

describe('docker/compose.yaml', () => {
  it('conforms to the Compose Specification subset (strict keys, enums, durations)', () => {
    const result = composeSchema.safeParse(interpolateTree(withoutExtensions(loadRaw()), {}));
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });

  it('has the dev stack services', () => {
    expect(Object.keys(render(loadRaw()).services).sort()).toEqual(['kafka', 'kafka-init', 'minio', 'minio-init', 'rest', 'thund', 'thund-serve', 'trino']);
  });

  it('renders with no variables set (every variable has a default) and takes overrides', () => {
    expect(() => interpolateTree(withoutExtensions(loadRaw()), {})).not.toThrow();
    const overridden = render(loadRaw(), { MINIO_ROOT_PASSWORD: 'from-env-123' });
    expect(environment(service(overridden, 'minio'))['MINIO_ROOT_PASSWORD']).toBe('from-env-123');
    expect(environment(service(overridden, 'rest'))['AWS_SECRET_ACCESS_KEY']).toBe('from-env-123');
  });

  it('pins every image (explicit tag, never latest), including base images of the ones it builds', () => {
    expect(imageProblems(render(loadRaw()), DOCKER_DIR)).toEqual([]);
  });

  it('publishes ports on 127.0.0.1 only, each host port once', () => {
    const compose = render(loadRaw());
    expect(portProblems(compose)).toEqual([]);
    expect(Object.values(compose.services).flatMap((s) => s.ports ?? []).length).toBeGreaterThan(0);
  });

  it('depends only on services that exist, healthy targets have healthchecks, no cycles', () => {
    expect(dependencyProblems(render(loadRaw()))).toEqual([]);
  });

  it('mounts files that exist and declares its named volumes', () => {
    expect(mountProblems(render(loadRaw()), DOCKER_DIR)).toEqual([]);
  });

  it('has healthchecks for minio, rest and kafka, and gates the stack on them', () => {
    const compose = render(loadRaw());
    for (const name of ['minio', 'rest', 'kafka']) {
      const check = service(compose, name).healthcheck;
      expect(check?.test, `service ${name} healthcheck`).toBeDefined();
      expect(check?.disable ?? false).toBe(false);
    }
    expect(dependencies(service(compose, 'minio-init')).get('minio')).toBe('service_healthy');
    expect(dependencies(service(compose, 'rest')).get('minio-init')).toBe('service_completed_successfully');
    expect(dependencies(service(compose, 'thund')).get('kafka')).toBe('service_healthy');
  });

  it('builds the thund service from docker/Dockerfile with the repository root as context', () => {
    const build = buildOf(service(render(loadRaw()), 'thund'), DOCKER_DIR);
    expect(build?.context).toBe(REPO);
    expect(build?.dockerfile).toBe(join(DOCKER_DIR, 'Dockerfile'));
  });

  it('creates the warehouse bucket that the REST catalog points at, with the MinIO credentials', () => {
    const compose = render(loadRaw());
    const init = service(compose, 'minio-init');
    const script = [init.entrypoint, init.command].flat().join(' ');
    expect(script).toMatch(/mc mb --ignore-existing local\/warehouse/);
    // `$$` in compose.yaml reaches the shell as `$`: the credentials come from the environment.
    expect(script).toContain('"$MINIO_ROOT_PASSWORD"');
    const minio = environment(service(compose, 'minio'));
    const rest = environment(service(compose, 'rest'));
    expect(rest['CATALOG_WAREHOUSE']).toBe('s3://warehouse/');
    expect(rest['CATALOG_IO__IMPL']).toBe('org.apache.iceberg.aws.s3.S3FileIO');
    expect(rest['CATALOG_S3_ENDPOINT']).toBe('http://minio:9000');
    expect(rest['CATALOG_S3_PATH__STYLE__ACCESS']).toBe('true');
    expect(rest['AWS_ACCESS_KEY_ID']).toBe(minio['MINIO_ROOT_USER']);
    expect(rest['AWS_SECRET_ACCESS_KEY']).toBe(minio['MINIO_ROOT_PASSWORD']);
  });

  it("gives Trino's Iceberg catalog the stack's REST catalog and MinIO", () => {
    const properties = readProperties(join(DOCKER_DIR, 'trino/catalog/iceberg.properties'));
    expect(properties.get('connector.name')).toBe('iceberg');
    expect(properties.get('iceberg.catalog.type')).toBe('rest');
    expect(properties.get('iceberg.rest-catalog.uri')).toBe('http://rest:8181');
    expect(properties.get('fs.native-s3.enabled')).toBe('true');
    expect(properties.get('s3.endpoint')).toBe('http://minio:9000');
    expect(properties.get('s3.path-style-access')).toBe('true');
    // Credentials are read from the container environment, which compose.yaml must set.
    const trinoEnv = environment(service(render(loadRaw()), 'trino'));
    for (const [key, value] of properties) {
      for (const match of value.matchAll(/\$\{ENV:(\w+)\}/g)) {
        expect(trinoEnv[match[1] ?? ''], `${key} reads ${match[1]}`).toBeTruthy();
      }
    }
  });

  describe('broken variants are caught', () => {
    it('a misspelt key, a wrong enum and a bad duration fail the schema', () => {
      const raw = structuredClone(withoutExtensions(loadRaw()));
      const services = raw['services'] as Record<string, Record<string, unknown>>;
      const services2 = structuredClone(services);
      (services['kafka'] as Record<string, unknown>)['healthcheck'] = { test: ['CMD', 'true'], interval: '10 seconds' };
      (services['thund'] as Record<string, unknown>)['dependson'] = ['kafka'];
      (services2['thund'] as Record<string, unknown>)['depends_on'] = { kafka: { condition: 'service_ready' } };
      const paths = (s: unknown): string[] => {
        const result = composeSchema.safeParse({ ...raw, services: s });
        return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
      };
      expect(paths(services)).toEqual(expect.arrayContaining(['services.kafka.healthcheck.interval', 'services.thund']));
      expect(paths(services2).some((p) => p.startsWith('services.thund.depends_on'))).toBe(true);
    });

    it('latest and untagged images are reported', () => {
      const compose = variant((s) => {
        (s['kafka'] as Record<string, unknown>)['image'] = 'apache/kafka:latest';
        (s['trino'] as Record<string, unknown>)['image'] = 'trinodb/trino';
      });
      expect(imageProblems(compose, DOCKER_DIR)).toEqual([
        'service kafka: image apache/kafka:latest is not pinned',
        'service trino: image trinodb/trino is not pinned',
      ]);
    });

    it('ports on all interfaces or without a host port are reported', () => {
      const compose = variant((s) => {
        (s['kafka'] as Record<string, unknown>)['ports'] = ['9092:9092', '9093'];
      });
      expect(portProblems(compose)).toEqual([
        'service kafka: port "9092:9092" is not bound to 127.0.0.1',
        'service kafka: port "9093" is not bound to 127.0.0.1',
        'service kafka: port "9093" has no fixed host port',
      ]);
    });

    it('a missing dependency, an unhealthy-able target and a cycle are reported', () => {
      const compose = variant((s) => {
        (s['thund'] as Record<string, unknown>)['depends_on'] = { postgres: { condition: 'service_started' }, trino: { condition: 'service_healthy' } };
        (s['minio'] as Record<string, unknown>)['depends_on'] = ['rest'];
        delete (s['trino'] as Record<string, unknown>)['healthcheck'];
      });
      const problems = dependencyProblems(compose);
      expect(problems).toContain('service thund: depends on missing service postgres');
      expect(problems).toContain('service thund: waits for trino to be healthy but trino has no healthcheck');
      expect(problems.some((p) => p.startsWith('dependency cycle:') && p.includes('minio'))).toBe(true);
    });

    it('a missing bind source and an undeclared volume are reported', () => {
      const compose = variant((s) => {
        (s['trino'] as Record<string, unknown>)['volumes'] = ['./trino/catalog/nope.properties:/etc/trino/catalog/nope.properties:ro', 'trino-data:/data'];
      });
      expect(mountProblems(compose, DOCKER_DIR)).toEqual([
        'service trino: mounts missing ./trino/catalog/nope.properties',
        'service trino: volume trino-data is not declared',
      ]);
    });
  });

  it('interpolates like Compose', () => {
    expect(interpolate('${A:-x}/${B-y}/${C:-}/$$HOME', { B: '' })).toBe('x///$HOME');
    expect(() => interpolate('${MISSING}', {})).toThrow(/MISSING/);
  });
});
