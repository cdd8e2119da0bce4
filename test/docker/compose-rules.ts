/**
 * The dev stack's own rules on top of the Compose schema. Each returns the problems it finds
 * (empty when the file keeps the rule), so tests can show both the real file passing and broken
 * variants failing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { publishedPort, type ComposeFile, type ComposeService } from './compose-schema.js';
import { parseDockerfile } from './dockerfile.js';
import { isPinned } from './image-ref.js';

export function dependencies(svc: ComposeService): Map<string, string> {
  const deps = svc.depends_on;
  if (deps === undefined) return new Map();
  if (Array.isArray(deps)) return new Map(deps.map((d) => [d, 'service_started']));
  return new Map(Object.entries(deps).map(([name, d]) => [name, d.condition]));
}

export function environment(svc: ComposeService): Record<string, string> {
  const env = svc.environment;
  if (env === undefined) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => [entry.split('=')[0] ?? '', entry.split('=').slice(1).join('=')]));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** Build context and Dockerfile path, resolved against the compose file's folder. */
export function buildOf(svc: ComposeService, composeDir: string): { context: string; dockerfile: string } | undefined {
  if (svc.build === undefined) return undefined;
  if (typeof svc.build === 'string') return { context: resolve(composeDir, svc.build), dockerfile: resolve(composeDir, svc.build, 'Dockerfile') };
  const context = resolve(composeDir, svc.build.context);
  return { context, dockerfile: resolve(context, svc.build.dockerfile ?? 'Dockerfile') };
}

/** Every service names a pinned image; base images of the ones Compose builds are pinned too. */
export function imageProblems(compose: ComposeFile, composeDir: string): string[] {
  const problems: string[] = [];
  for (const [name, svc] of Object.entries(compose.services)) {
    if (svc.image === undefined) problems.push(`service ${name}: no image name`);
    else if (!isPinned(svc.image)) problems.push(`service ${name}: image ${svc.image} is not pinned`);
    const build = buildOf(svc, composeDir);
    if (build === undefined) continue;
    if (!existsSync(build.dockerfile)) {
      problems.push(`service ${name}: ${build.dockerfile} does not exist`);
      continue;
    }
    for (const stage of parseDockerfile(readFileSync(build.dockerfile, 'utf8')).stages) {
      if (!isPinned(stage.image)) problems.push(`service ${name}: FROM ${stage.image} is not pinned`);
    }
  }
  return problems;
}

/** Published ports bind to 127.0.0.1 with an explicit host port, each host port once. */
export function portProblems(compose: ComposeFile): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [name, svc] of Object.entries(compose.services)) {
    for (const entry of svc.ports ?? []) {
      const port = publishedPort(entry);
      const label = `service ${name}: port ${JSON.stringify(entry)}`;
      if (port.hostIp !== '127.0.0.1') problems.push(`${label} is not bound to 127.0.0.1`);
      if (port.published === undefined || !/^\d+$/.test(port.published)) problems.push(`${label} has no fixed host port`);
      else if (seen.has(port.published)) problems.push(`${label} reuses host port ${port.published} of ${seen.get(port.published)}`);
      else seen.set(port.published, name);
    }
  }
  return problems;
}

/** depends_on targets exist, `service_healthy` targets have a healthcheck, and there is no cycle. */
export function dependencyProblems(compose: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, svc] of Object.entries(compose.services)) {
    for (const [dep, condition] of dependencies(svc)) {
      const target = compose.services[dep];
      if (target === undefined) problems.push(`service ${name}: depends on missing service ${dep}`);
      else if (condition === 'service_healthy' && target.healthcheck === undefined) {
        problems.push(`service ${name}: waits for ${dep} to be healthy but ${dep} has no healthcheck`);
      }
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    const svc = compose.services[name];
    if (svc === undefined || state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      problems.push(`dependency cycle: ${[...path, name].join(' -> ')}`);
      return;
    }
    state.set(name, 'visiting');
    for (const dep of dependencies(svc).keys()) visit(dep, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of Object.keys(compose.services)) visit(name, []);
  return problems;
}

/** Bind-mounted host paths exist; named volumes are declared at the top level. */
export function mountProblems(compose: ComposeFile, composeDir: string): string[] {
  const problems: string[] = [];
  const declared = new Set(Object.keys(compose.volumes ?? {}));
  for (const [name, svc] of Object.entries(compose.services)) {
    for (const mount of svc.volumes ?? []) {
      const source = typeof mount === 'string' ? (mount.includes(':') ? (mount.split(':')[0] ?? '') : '') : (mount.source ?? '');
      if (source.startsWith('.') || source.startsWith('/')) {
        if (!existsSync(resolve(composeDir, source))) problems.push(`service ${name}: mounts missing ${source}`);
      } else if (source !== '' && !declared.has(source)) {
        problems.push(`service ${name}: volume ${source} is not declared`);
      }
    }
  }
  return problems;
}

/** `key=value` lines of a Java properties file (no continuations: ours has none). */
export function readProperties(path: string): Map<string, string> {
  return new Map(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#') && line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1).trim()] as const),
  );
}
