/**
 * A MinIO server built from source with `go install` (the Go module proxy is the ordinary client
 * for it), cached per module version, started on two free loopback ports with fresh random root
 * credentials for every run, and the `warehouse` bucket created through the S3 API.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { cacheDir, delay, freePort, httpOk, runDir, runStep, startProcess, StackError, waitUntilReady } from './process.js';
import { stackS3Client } from './s3-env.js';
import type { RunningService } from './service.js';

/**
 * The release the project pins is RELEASE.2025-10-15T17-29-55Z (commit 9e49d5e7a648). The module
 * proxy refuses that tag and its pseudo-version (403, "not available"); the only version it serves
 * is the tip of master, which is that release plus 11 commits of small fixes and README changes
 * (no newer RELEASE tag exists: the project went into maintenance mode). So this is the pin.
 */
export const MINIO_MODULE_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
export const MINIO_VERSION = 'RELEASE.2025-10-15T17-29-55Z+11';
export const MINIO_BUCKET = 'warehouse';
export const MINIO_REGION = 'us-east-1';

const READY_TIMEOUT_MS = 60_000;

export interface RunningMinio extends RunningService {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
  readonly bucket: string;
}

/** The `minio` binary, built once into the cache (several minutes on two cores the first time). */
export async function minioBinary(): Promise<string> {
  const dir = cacheDir(`minio-${MINIO_MODULE_VERSION}`);
  const binary = join(dir, 'bin', 'minio');
  if (existsSync(binary)) return binary;
  // Test runs started side by side would each compile MinIO; one builds, the others wait for it.
  await withLock(join(dir, '.install-lock'), async () => {
    if (existsSync(binary)) return;
    await runStep('minio', 'go', ['install', `github.com/minio/minio@${MINIO_MODULE_VERSION}`], {
      env: { GOBIN: join(dir, 'bin'), GOFLAGS: '-buildvcs=false' },
    });
    if (!existsSync(binary)) throw new StackError(`go install of minio ${MINIO_MODULE_VERSION} finished without producing ${binary}`);
  });
  return binary;
}

/** A directory lock (mkdir is atomic) holding its owner's pid; a dead owner's lock is taken over. */
async function withLock(lock: string, work: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!ownerAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else await delay(2_000);
    }
  }
  try {
    await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function ownerAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    // Just created and the pid not written yet, unless its creator died in between.
    const stat = statSync(lock, { throwIfNoEntry: false });
    return stat !== undefined && Date.now() - stat.mtimeMs < 30_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startMinio(): Promise<RunningMinio> {
  const binary = await minioBinary();
  const port = await freePort();
  let consolePort = await freePort();
  while (consolePort === port) consolePort = await freePort();
  const dataDir = runDir(`minio-${port}`, 'data');
  // Random per run and passed only through the child's environment: never on a command line or in a log.
  const accessKey = `thund${randomBytes(6).toString('hex')}`;
  const secretKey = randomBytes(24).toString('base64url');
  const endpoint = `http://127.0.0.1:${port}`;

  const service = startProcess({
    name: `minio-${port}`,
    command: binary,
    args: ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
    env: {
      MINIO_ROOT_USER: accessKey,
      MINIO_ROOT_PASSWORD: secretKey,
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
      MINIO_CI_CD: 'on',
    },
  });
  await waitUntilReady(service, () => httpOk(`${endpoint}/minio/health/live`), READY_TIMEOUT_MS);

  const s3 = stackS3Client({ endpoint, region: MINIO_REGION, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: MINIO_BUCKET }));
  } catch (error) {
    await service.stop();
    throw new StackError(`minio at ${endpoint}: creating bucket ${MINIO_BUCKET} failed: ${(error as Error).message}. Log ${service.logFile}:\n${service.logTail()}`);
  } finally {
    s3.destroy();
  }

  return runningMinio({ version: MINIO_VERSION, endpoint, accessKey, secretKey, stop: () => service.stop() });
}

/** A started MinIO (process or container) with the variables tests find it by. */
export function runningMinio(args: { version: string; endpoint: string; accessKey: string; secretKey: string; stop: () => Promise<void> }): RunningMinio {
  const { version, endpoint, accessKey, secretKey, stop } = args;
  return {
    name: 'minio',
    version,
    endpoint,
    accessKey,
    secretKey,
    region: MINIO_REGION,
    bucket: MINIO_BUCKET,
    env: {
      THUND_TEST_S3_ENDPOINT: endpoint,
      THUND_TEST_S3_ACCESS_KEY: accessKey,
      THUND_TEST_S3_SECRET_KEY: secretKey,
      THUND_TEST_S3_REGION: MINIO_REGION,
      THUND_TEST_S3_BUCKET: MINIO_BUCKET,
    },
    stop,
  };
}
