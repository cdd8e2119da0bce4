/**
 * docker/Dockerfile and .dockerignore checked without a Docker engine: multi-stage, pinned base
 * images, the build steps CI runs, a non-root final stage that carries only run-time files, an
 * ENTRYPOINT that is the package's `thund` bin, and a build context that holds what COPY reads.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { execForm, instructionsOf, parseDockerfile, parseInstructions, type Stage } from './dockerfile.js';
import { isIgnored, parseDockerignore } from './dockerignore.js';
import { isPinned, parseImageRef } from './image-ref.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dockerfile = parseDockerfile(readFileSync(join(REPO, 'docker/Dockerfile'), 'utf8'));
const finalStage = dockerfile.stages[dockerfile.stages.length - 1] as Stage;
const buildStage = dockerfile.stages[0] as Stage;
const packageJson = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  engines: { node: string };
};

/** Shell commands of a stage's RUN instructions, split on `&&`, `;` and newlines. */
function runCommands(stage: Stage): string[] {
  return instructionsOf(stage, 'RUN').flatMap((run) => run.args.split(/&&|;|\n/).map((c) => c.trim().replace(/\s+/g, ' ')));
}

/** Context sources of COPY instructions without --from (what the build context must hold). */
function contextSources(stage: Stage): string[] {
  return instructionsOf(stage, 'COPY')
    .filter((copy) => !/--from=/.test(copy.args))
    .flatMap((copy) => {
      const words = copy.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      return words.slice(0, -1).map((w) => w.replace(/^\.\//, '').replace(/\/$/, ''));
    });
}

describe('docker/Dockerfile', () => {
  it('is multi-stage: a named build stage and a final run-time stage copying from it', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    expect(buildStage.name).toBe('build');
    const fromStages = instructionsOf(finalStage, 'COPY')
      .map((copy) => /--from=(\S+)/.exec(copy.args)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(fromStages.length).toBeGreaterThan(0);
    for (const name of fromStages) expect(dockerfile.stages.map((s) => s.name)).toContain(name);
  });

  it('pins every base image, on the newest Node major the package declares (a current LTS line)', () => {
    const majors = [...packageJson.engines.node.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1]));
    expect(majors.length).toBeGreaterThan(0);
    const major = String(Math.max(...majors));
    for (const stage of dockerfile.stages) {
      expect(isPinned(stage.image), `FROM ${stage.image}`).toBe(true);
      const ref = parseImageRef(stage.image);
      expect(ref.repository).toBe('node');
      expect(ref.tag?.split('-')[0]).toBe(major);
    }
  });

  it('builds as CI does: npm ci (whose prepare script compiles), then prunes dev dependencies', () => {
    const ciRun = readFileSync(join(REPO, '.ci/run'), 'utf8');
    expect(ciRun).toMatch(/^\s*npm ci\s*$/m);
    expect(packageJson.scripts['prepare']).toBe(packageJson.scripts['build']);
    const commands = runCommands(buildStage);
    const ci = commands.indexOf('npm ci');
    const prune = commands.indexOf('npm prune --omit=dev');
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(prune).toBeGreaterThan(ci);
    // node-gyp (better-sqlite3) uses the image's own headers instead of downloading them.
    const env = instructionsOf(buildStage, 'ENV').map((e) => e.args).join(' ');
    expect(env).toContain('npm_config_nodedir=/usr/local');
    expect(commands.some((c) => /apt-get install .*python3.*make.*g\+\+/.test(c))).toBe(true);
  });

  it('runs the final stage as a non-root user', () => {
    const users = instructionsOf(finalStage, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const last = (users[users.length - 1]?.args ?? '').trim();
    const [user = '', group = ''] = last.split(':');
    expect(['root', '0', '']).not.toContain(user);
    expect(['root', '0']).not.toContain(group);
    // The USER line comes after every RUN of the final stage, so nothing later runs as root.
    const lastRun = Math.max(...instructionsOf(finalStage, 'RUN').map((r) => r.line), 0);
    expect(users[users.length - 1]?.line ?? 0).toBeGreaterThan(lastRun);
  });

  it('carries only run-time files into the final stage', () => {
    const copied = instructionsOf(finalStage, 'COPY').map((copy) => {
      const words = copy.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      return words.slice(0, -1).map((w) => w.replace(/^\/src\//, '').replace(/^\.\//, '')).join(' ');
    });
    expect(copied.sort()).toEqual(['dist', 'docker/healthcheck.mjs', 'examples', 'node_modules', 'package.json']);
    expect(instructionsOf(finalStage, 'RUN').some((r) => /npm (ci|install)/.test(r.args))).toBe(false);
  });

  it("enters through tini and the package's thund bin with --help as the default command, in the /data volume", () => {
    const entrypoint = execForm(instructionsOf(finalStage, 'ENTRYPOINT')[0]);
    expect(entrypoint?.slice(0, 3)).toEqual(['tini', '--', 'node']);
    expect(runCommands(finalStage).some((c) => /apt-get install .*\btini\b/.test(c))).toBe(true);
    const workdirs = instructionsOf(finalStage, 'WORKDIR').map((w) => w.args.trim());
    const appDir = workdirs[0] ?? '';
    expect(entrypoint?.[3]).toBe(`${appDir}/${(packageJson.bin['thund'] ?? '').replace(/^\.\//, '')}`);
    expect(execForm(instructionsOf(finalStage, 'CMD')[0])).toEqual(['--help']);
    expect(workdirs[workdirs.length - 1]).toBe('/data');
  });

  it('may run on a read-only root filesystem: data and temporary files go to volumes', () => {
    expect(instructionsOf(finalStage, 'VOLUME').map((v) => v.args)).toContain('["/data", "/tmp"]');
    expect(instructionsOf(finalStage, 'ENV').map((e) => e.args).join(' ')).toMatch(/\bTMPDIR=\/tmp\b/);
  });

  it('has a HEALTHCHECK that runs the copied healthcheck script', () => {
    const [check] = instructionsOf(finalStage, 'HEALTHCHECK');
    expect(check?.args).toMatch(/CMD \["node", "\/app\/docker\/healthcheck\.mjs"\]$/);
    expect(check?.args).toMatch(/--timeout=\d+s/);
  });
});

describe('.dockerignore (build context = repository root)', () => {
  const rules = parseDockerignore(readFileSync(join(REPO, '.dockerignore'), 'utf8'));

  it('keeps every path the Dockerfile copies from the context', () => {
    const sources = dockerfile.stages.flatMap(contextSources);
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'examples']));
    for (const source of sources) {
      expect(isIgnored(rules, source), `${source} is excluded`).toBe(false);
      expect(isIgnored(rules, `${source}/some/file.ts`), `${source}/… is excluded`).toBe(false);
    }
  });

  it('leaves out host builds, dependencies, warehouses and repository metadata', () => {
    for (const path of ['node_modules', 'node_modules/yaml/package.json', 'dist/bin/thund.js', '.git/HEAD', 'warehouse/catalog.db',
      'examples/quickstart/warehouse/catalog.db', 'src/node_modules/x.js', 'scratch/a.mjs', 'test/unit/x.test.ts', '.env']) {
      expect(isIgnored(rules, path), path).toBe(true);
    }
  });
});

describe('Dockerfile reader', () => {
  it('joins continuations, drops comments, substitutes global ARGs into FROM', () => {
    const parsed = parseDockerfile(
      ['ARG BASE=node:20-slim', '# comment', 'FROM ${BASE} AS Build', 'RUN a \\', '  # inner comment', '  && b', 'FROM scratch', 'USER 1:1'].join('\n'),
    );
    expect(parsed.stages.map((s) => [s.image, s.name])).toEqual([['node:20-slim', 'build'], ['scratch', undefined]]);
    expect(parsed.stages[0]?.instructions).toEqual([{ keyword: 'RUN', args: 'a && b', line: 4 }]);
    expect(parseInstructions('cmd ["x"]')[0]?.keyword).toBe('CMD');
  });

  it('tells pinned image references from floating ones', () => {
    expect(isPinned('node:20-bookworm-slim')).toBe(true);
    expect(isPinned('localhost:5000/thund')).toBe(false);
    expect(isPinned('localhost:5000/thund:1.2')).toBe(true);
    expect(isPinned('node:latest')).toBe(false);
    expect(isPinned(`node@sha256:${'a'.repeat(64)}`)).toBe(true);
  });
});
