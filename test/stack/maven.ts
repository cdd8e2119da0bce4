/**
 * Jars and archives from Maven Central, resolved by Maven itself (the ordinary client) into the
 * cache, keyed by the exact coordinates, so a second run is instant.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, runStep } from './process.js';

export interface MavenCoordinate {
  readonly groupId: string;
  readonly artifactId: string;
  readonly version: string;
  readonly classifier?: string;
  readonly type?: string;
  /** Exclude all transitive dependencies of this one artifact. */
  readonly intransitive?: boolean;
}

const key = (parts: readonly unknown[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);

/** The jars of these artifacts and (unless intransitive) their runtime dependencies, in one folder. */
export async function mavenClasspath(name: string, artifacts: readonly MavenCoordinate[]): Promise<string[]> {
  const dir = cacheDir('maven', `${name}-${key(artifacts)}`);
  const stamp = join(dir, '.complete');
  if (!existsSync(stamp)) {
    const pom = join(dir, 'pom.xml');
    writeFileSync(pom, pomFor(name, artifacts));
    await runStep(`maven-${name}`, 'mvn', ['-q', '-B', '-f', pom, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${join(dir, 'lib')}`]);
    writeFileSync(stamp, new Date().toISOString());
  }
  return readdirSync(join(dir, 'lib'))
    .filter((file) => file.endsWith('.jar'))
    .map((file) => join(dir, 'lib', file))
    .sort();
}

/** One artifact file (e.g. a tar.gz distribution), copied into the cache. */
export async function mavenArtifact(artifact: MavenCoordinate): Promise<string> {
  const type = artifact.type ?? 'jar';
  const dir = cacheDir('maven', `${artifact.artifactId}-${artifact.version}-${key([artifact])}`);
  const file = join(dir, `${artifact.artifactId}-${artifact.version}${artifact.classifier === undefined ? '' : `-${artifact.classifier}`}.${type}`);
  if (!existsSync(file)) {
    const coordinate = [artifact.groupId, artifact.artifactId, artifact.version, type, ...(artifact.classifier === undefined ? [] : [artifact.classifier])].join(':');
    await runStep(`maven-${artifact.artifactId}`, 'mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${coordinate}`, `-DoutputDirectory=${dir}`]);
  }
  return file;
}

function pomFor(name: string, artifacts: readonly MavenCoordinate[]): string {
  const dependencies = artifacts
    .map(
      (a) => `    <dependency>
      <groupId>${a.groupId}</groupId><artifactId>${a.artifactId}</artifactId><version>${a.version}</version>${
        a.classifier === undefined ? '' : `<classifier>${a.classifier}</classifier>`
      }${a.type === undefined ? '' : `<type>${a.type}</type>`}${
        a.intransitive === true ? '<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>' : ''
      }
    </dependency>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>thund.test-stack</groupId>
  <artifactId>${name}</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies}
  </dependencies>
</project>
`;
}
