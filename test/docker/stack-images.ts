/**
 * Makes, on a Docker engine without a registry (test/docker/engine.ts), the images that
 * docker/compose.yaml and the testcontainers stack (test/stack/containers.ts) name, under those
 * exact names, from the artifacts the local test stack already runs (Maven jars, the module
 * proxy's Go toolchain, PyPI, this machine's JDKs and the Debian mirror):
 *
 *   npx tsx test/docker/stack-images.ts [--rebuild] [name…]   # names: see STACK_IMAGES (all by default)
 *
 * An image that exists is kept, unless --rebuild names it (then it is built without the build
 * cache, and the old image stays usable by containers that run it until they are removed). Each one made carries the label MADE_BY_LABEL. The Dockerfiles
 * and scripts are in test/docker/images/<name>/; a build's context is a temporary folder with
 * that folder's files and the artifacts hard-linked into its rootfs/ (copied across file systems).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JAVA25_HOME } from '../stack/java.js';
import { kafkaToolsClasspath } from '../stack/kafka.js';
import { SERVICE_IMAGES } from '../stack/stack-image-names.js';
import { mavenArtifact } from '../stack/maven.js';
import { NESSIE_VERSION } from '../stack/nessie.js';
import { cacheDir, runStep, StackError } from '../stack/process.js';
import { restCatalogJar } from '../stack/rest-catalog.js';
import { installTrino, TRINO_JVM_FLAGS, TRINO_LAUNCHER_CLASS, TRINO_VERSION } from '../stack/trino.js';
import { docker, dockerEngine, REPO } from './engine.js';

export const MADE_BY_LABEL = 'org.thund.made-by=test/docker/stack-images.ts';

const IMAGES = join(REPO, 'test', 'docker', 'images');
const JAVA17_HOME = process.env['THUND_JAVA17_HOME'] ?? '/usr/lib/jvm/java-17-openjdk-amd64';
const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const GO_MINOR = '1.25';
const TRINO_CLI_VERSION = '476';
/** Development tools a service runtime does not need (jdk.jlink cannot be linked from a JDK without jmods anyway). */
const JRE_LEFT_OUT = /^jdk\.(jlink|jpackage|jshell|javadoc|jdeps|jartool|compiler|hotspot\.agent|editpad|internal\.ed|internal\.le|internal\.opt|jdi|jdwp\.agent|jconsole)$/;

/** Short name (its folder under test/docker/images) → the image reference made: the services' images and what they are built from. */
export const STACK_IMAGES = {
  debian: 'debian:bookworm-slim',
  golang: `golang:${GO_MINOR}-bookworm`,
  'stack-base': 'thund-dev/stack-base:bookworm',
  minio: SERVICE_IMAGES.minio,
  'iceberg-rest-fixture': SERVICE_IMAGES['iceberg-rest-fixture'],
  kafka: SERVICE_IMAGES.kafka,
  trino: SERVICE_IMAGES.trino,
  nessie: SERVICE_IMAGES.nessie,
  moto: SERVICE_IMAGES.moto,
} as const;

export type StackImageName = keyof typeof STACK_IMAGES;

interface Recipe {
  /** Images this one is built FROM. */
  readonly needs: readonly StackImageName[];
  /** Makes the image: fills `context` (already holding the folder's files) and builds, or imports. */
  make(ref: string, context: string, fresh: boolean): Promise<void>;
}

const RECIPES: Record<StackImageName, Recipe> = {
  debian: { needs: [], make: importMinbase },
  golang: {
    needs: ['debian'],
    async make(ref, context, fresh) {
      const go = await goToolchain();
      linkTree(go.root, join(context, 'rootfs', 'usr', 'local', 'go'));
      mkdirSync(join(context, 'rootfs', 'etc', 'ssl', 'certs'), { recursive: true });
      copyFileSync(HOST_CA_BUNDLE, join(context, 'rootfs', 'etc', 'ssl', 'certs', 'ca-certificates.crt'));
      for (const dir of ['go', 'go/src', 'go/bin']) {
        mkdirSync(join(context, 'rootfs', dir), { recursive: true });
        chmodSync(join(context, 'rootfs', dir), 0o1777);
      }
      const env = hostGoEnv();
      await build(ref, context, fresh, { GOLANG_VERSION: go.version, GOPROXY: env.GOPROXY, GOSUMDB: env.GOSUMDB, GOFLAGS: env.GOFLAGS });
    },
  },
  // The users' Dockerfile, unchanged, in its own folder.
  minio: { needs: ['golang', 'debian'], make: (ref, _context, fresh) => build(ref, join(REPO, 'docker', 'minio'), fresh) },
  'stack-base': { needs: ['debian'], make: build },
  'iceberg-rest-fixture': {
    needs: ['stack-base'],
    async make(ref, context, fresh) {
      linkTree(await jre(JAVA17_HOME), join(context, 'rootfs', 'opt', 'java', 'openjdk'));
      linkFile(await restCatalogJar(), join(context, 'rootfs', 'usr', 'lib', 'iceberg-rest', 'iceberg-rest-adapter.jar'));
      await build(ref, context, fresh);
    },
  },
  kafka: {
    needs: ['stack-base'],
    async make(ref, context, fresh) {
      linkTree(await jre(JAVA17_HOME), join(context, 'rootfs', 'opt', 'java', 'openjdk'));
      linkJars(await kafkaToolsClasspath(), join(context, 'rootfs', 'opt', 'kafka', 'libs'));
      await build(ref, context, fresh);
    },
  },
  trino: {
    needs: ['stack-base'],
    async make(ref, context, fresh) {
      const installed = await installTrino();
      const home = join(context, 'rootfs', 'usr', 'lib', 'trino');
      linkTree(await jre(JAVA25_HOME), join(context, 'rootfs', 'opt', 'java', 'openjdk'));
      linkJars(installed.classpath.split(':'), join(home, 'lib'));
      linkJars(readdirSync(join(installed.pluginDir, 'iceberg')).map((jar) => join(installed.pluginDir, 'iceberg', jar)), join(home, 'plugin', 'iceberg'));
      mkdirSync(join(context, 'rootfs', 'etc', 'trino', 'catalog'), { recursive: true });
      writeFileSync(join(context, 'rootfs', 'etc', 'trino', 'jvm.config'), `${TRINO_JVM_FLAGS.join('\n')}\n`);
      // The upstream image's `trino` command: the CLI's self-running jar. Maven Central serves none
      // newer than 476 here; the client protocol is the same.
      const cli = await mavenArtifact({ groupId: 'io.trino', artifactId: 'trino-cli', version: TRINO_CLI_VERSION, classifier: 'executable' });
      mkdirSync(join(context, 'rootfs', 'usr', 'bin'), { recursive: true });
      copyFileSync(cli, join(context, 'rootfs', 'usr', 'bin', 'trino'));
      chmodSync(join(context, 'rootfs', 'usr', 'bin', 'trino'), 0o755);
      await build(ref, context, fresh, { TRINO_VERSION, TRINO_MAIN_CLASS: TRINO_LAUNCHER_CLASS });
    },
  },
  nessie: {
    needs: ['stack-base'],
    async make(ref, context, fresh) {
      const jar = await mavenArtifact({ groupId: 'org.projectnessie.nessie', artifactId: 'nessie-quarkus', version: NESSIE_VERSION, classifier: 'runner' });
      linkTree(await jre(JAVA25_HOME), join(context, 'rootfs', 'opt', 'java', 'openjdk'));
      linkFile(jar, join(context, 'rootfs', 'deployments', 'nessie-quarkus-runner.jar'));
      await build(ref, context, fresh);
    },
  },
  moto: {
    needs: ['stack-base'],
    async make(ref, context, fresh) {
      copyFileSync(join(REPO, 'test', 'stack', 'requirements-moto.txt'), join(context, 'requirements-moto.txt'));
      copyFileSync(HOST_CA_BUNDLE, join(context, 'host-ca.crt'));
      await build(ref, context, fresh);
    },
  },
};

export interface MadeImage {
  readonly name: StackImageName;
  readonly ref: string;
  readonly sizeMiB: number;
  /** Seconds the build took; undefined when the image existed. */
  readonly seconds: number | undefined;
}

/**
 * Makes the named images (all by default) and what they are built from, when missing; one line
 * each on stdout. `rebuild`: the named images are made anew even when they exist.
 */
export async function ensureStackImages(names: readonly StackImageName[] = Object.keys(STACK_IMAGES) as StackImageName[], options: { readonly rebuild?: boolean } = {}): Promise<MadeImage[]> {
  dockerEngine();
  const made: MadeImage[] = [];
  const visit = async (name: StackImageName): Promise<void> => {
    if (made.some((image) => image.name === name)) return;
    for (const need of RECIPES[name].needs) await visit(need);
    const ref = STACK_IMAGES[name];
    let seconds: number | undefined;
    const fresh = options.rebuild === true && names.includes(name);
    if (fresh || !imageExists(ref)) {
      const started = Date.now();
      const context = mkdtempSync(join(tmpdir(), `thund-image-${name}-`));
      try {
        const own = join(IMAGES, name);
        if (existsSync(own)) cpSync(own, context, { recursive: true });
        await RECIPES[name].make(ref, context, fresh);
      } finally {
        rmSync(context, { recursive: true, force: true });
      }
      seconds = (Date.now() - started) / 1000;
    }
    const image = { name, ref, sizeMiB: imageSizeMiB(ref), seconds };
    made.push(image);
    console.log(`${ref}: ${image.sizeMiB.toFixed(0)} MiB, ${seconds === undefined ? 'already there' : `made in ${seconds.toFixed(1)} s`}`);
  };
  for (const name of names) await visit(name);
  return made;
}

function imageExists(ref: string): boolean {
  return docker(['image', 'inspect', '--format', '{{.Id}}', ref], 60_000).status === 0;
}

function imageSizeMiB(ref: string): number {
  const result = docker(['image', 'inspect', '--format', '{{.Size}}', ref], 60_000);
  if (result.status !== 0) throw new StackError(`image ${ref} is missing after it was made`);
  return Number(result.stdout.trim()) / 2 ** 20;
}

/** `fresh`: without the build cache. */
async function build(ref: string, context: string, fresh: boolean, buildArgs: Readonly<Record<string, string>> = {}): Promise<void> {
  // --force-rm: a failed step leaves no stopped container behind on the shared engine.
  const args = ['build', '--network', 'host', '--force-rm', '--label', MADE_BY_LABEL, '-t', ref, ...(fresh ? ['--no-cache'] : [])];
  for (const [name, value] of Object.entries(buildArgs)) args.push('--build-arg', `${name}=${value}`);
  const { host, cli } = dockerEngine();
  await runStep(`docker-build-${ref.replace(/[^A-Za-z0-9.-]+/g, '_')}`, cli, [...args, context], { env: { DOCKER_HOST: host, DOCKER_BUILDKIT: '0' } });
}

/**
 * debian:bookworm-slim is the minbase tree test/docker/engine.sh debootstraps (its apt sources name
 * the Debian mirror this machine's apt uses), imported with its root folder opened to all users
 * (debootstrap's target folder was 0700), without apt's downloaded package lists, and with apt
 * set to keep no caches (images/debian/rootfs).
 */
async function importMinbase(ref: string, context: string): Promise<void> {
  const tarball = join(cacheDir('docker'), 'bookworm-minbase.tar');
  if (!existsSync(tarball)) throw new StackError(`${tarball} is missing: test/docker/engine.sh start makes it (debootstrap)`);
  // The folder's own rootfs/ (apt settings) is already there; the tree goes around it.
  const rootfs = join(context, 'rootfs');
  mkdirSync(rootfs, { recursive: true });
  await runStep('minbase-untar', 'tar', ['-C', rootfs, '-xf', tarball]);
  rmSync(join(rootfs, 'var', 'lib', 'apt', 'lists'), { recursive: true, force: true });
  mkdirSync(join(rootfs, 'var', 'lib', 'apt', 'lists', 'partial'), { recursive: true });
  const { host, cli } = dockerEngine();
  const changes = ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["bash"]', `LABEL ${MADE_BY_LABEL}`];
  const imported = spawnSync('bash', ['-c', `chmod 755 "$1" && tar -C "$1" -c . | "$2" import ${changes.map((_, i) => `--change "\${${i + 4}}"`).join(' ')} - "$3"`, 'import', rootfs, cli, ref, ...changes], {
    encoding: 'utf8',
    env: { ...process.env, DOCKER_HOST: host },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (imported.status !== 0) throw new StackError(`docker import of ${tarball} as ${ref} failed (exit ${imported.status}): ${imported.stderr}`);
}

/** The newest Go 1.25 release the module proxy serves as a toolchain module, in the module cache. */
async function goToolchain(): Promise<{ version: string; root: string }> {
  const env = hostGoEnv();
  const proxy = env.GOPROXY.split(/[,|]/).find((entry) => entry.startsWith('http'));
  if (proxy === undefined) throw new StackError(`go env GOPROXY (${env.GOPROXY}) names no proxy URL to list Go toolchains from`);
  const response = await fetch(`${proxy.replace(/\/$/, '')}/golang.org/toolchain/@v/list`, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new StackError(`${proxy}: the Go toolchain list answered HTTP ${response.status}`);
  const patches = (await response.text())
    .split('\n')
    .map((line) => new RegExp(`^v0\\.0\\.1-go${GO_MINOR.replace('.', '\\.')}\\.(\\d+)\\.linux-amd64$`).exec(line.trim())?.[1])
    .filter((patch): patch is string => patch !== undefined)
    .map(Number);
  if (patches.length === 0) throw new StackError(`${proxy} serves no go${GO_MINOR}.N toolchain for linux-amd64`);
  const version = `${GO_MINOR}.${Math.max(...patches)}`;
  // The go command fetches the toolchain module into the module cache when asked to run it.
  const fetched = spawnSync('go', ['version'], { encoding: 'utf8', cwd: tmpdir(), env: { ...process.env, GOTOOLCHAIN: `go${version}` }, timeout: 600_000 });
  const root = join(env.GOMODCACHE, `golang.org/toolchain@v0.0.1-go${version}.linux-amd64`);
  if (fetched.status !== 0 || !existsSync(join(root, 'bin', 'go'))) throw new StackError(`GOTOOLCHAIN=go${version} go version did not install ${root}: ${fetched.stderr}`);
  return { version, root };
}

function hostGoEnv(): { GOPROXY: string; GOSUMDB: string; GOFLAGS: string; GOMODCACHE: string } {
  const result = spawnSync('go', ['env', 'GOPROXY', 'GOSUMDB', 'GOFLAGS', 'GOMODCACHE'], { encoding: 'utf8' });
  const [GOPROXY = '', GOSUMDB = '', GOFLAGS = '', GOMODCACHE = ''] = (result.stdout ?? '').split('\n');
  if (result.status !== 0 || GOPROXY === '' || GOMODCACHE === '') throw new StackError(`go env failed (is Go installed?): ${result.stderr}`);
  return { GOPROXY, GOSUMDB, GOFLAGS, GOMODCACHE };
}

/** A runtime image of `javaHome` (jlink: no sources, docs, headers or dev tools), made once into the cache. */
async function jre(javaHome: string): Promise<string> {
  const release = readFileSync(join(javaHome, 'release'), 'utf8');
  const listed = spawnSync(join(javaHome, 'bin', 'java'), ['--list-modules'], { encoding: 'utf8' });
  if (listed.status !== 0) throw new StackError(`${javaHome}/bin/java --list-modules failed: ${listed.stderr}`);
  const modules = listed.stdout
    .split('\n')
    .map((line) => line.split('@')[0]?.trim() ?? '')
    .filter((module) => module !== '' && !JRE_LEFT_OUT.test(module));
  const key = createHash('sha256').update(JSON.stringify([javaHome, release, modules])).digest('hex').slice(0, 16);
  const dir = cacheDir('docker-jre', key);
  const output = join(dir, 'jre');
  if (!existsSync(join(dir, '.complete'))) {
    rmSync(output, { recursive: true, force: true });
    await runStep(`jlink-${key}`, join(javaHome, 'bin', 'jlink'), ['--add-modules', modules.join(','), '--strip-debug', '--no-man-pages', '--no-header-files', '--output', output]);
    writeFileSync(join(dir, '.complete'), new Date().toISOString());
  }
  return output;
}

/** Hard-links every file of `source` under `target` (symbolic links are followed), copying across file systems. */
function linkTree(source: string, target: string): void {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source)) {
    const from = join(source, entry);
    const to = join(target, entry);
    if (statSync(from).isDirectory()) linkTree(from, to);
    else linkFile(from, to);
  }
}

function linkFile(source: string, target: string): void {
  mkdirSync(join(target, '..'), { recursive: true });
  const real = realpathSync(source);
  try {
    linkSync(real, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyFileSync(real, target);
  }
}

/** Jars into one folder by file name; two different jars of the same name would shadow each other, so that fails. */
function linkJars(jars: readonly string[], target: string): void {
  const seen = new Map<string, string>();
  for (const jar of jars) {
    const name = basename(jar);
    const other = seen.get(name);
    if (other !== undefined && realpathSync(other) !== realpathSync(jar)) throw new StackError(`two jars named ${name}: ${other} and ${jar}`);
    seen.set(name, jar);
    if (other === undefined) linkFile(jar, join(target, name));
  }
}

function isStackImageName(name: string): name is StackImageName {
  return Object.hasOwn(STACK_IMAGES, name);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rebuild = process.argv.includes('--rebuild');
  const names = process.argv.slice(2).filter((arg) => arg !== '--rebuild');
  const unknown = names.filter((name) => !isStackImageName(name));
  if (unknown.length > 0) {
    console.error(`unknown image name(s): ${unknown.join(', ')}; known: ${Object.keys(STACK_IMAGES).join(', ')}`);
    process.exit(2);
  }
  ensureStackImages(names.length === 0 ? undefined : names.filter(isStackImageName), { rebuild }).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
