/**
 * moto's server (PyPI) as the AWS Glue API on a free loopback port, from its own pinned venv
 * (python-env.sh requirements-moto.txt). Each start is a fresh, empty in-memory account.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, httpOk, runDir, StackError, startProcess, waitUntilReady } from './process.js';
import type { RunningService } from './service.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REQUIREMENTS = join(HERE, 'requirements-moto.txt');
const READY_TIMEOUT_MS = 60_000;

/** moto accepts any credentials; these fixed ones are what tests sign with. */
const TEST_CREDENTIALS = { accessKey: 'testing', secretKey: 'testing', region: 'us-east-1' } as const;

/** The pinned moto version, read from the requirements file so the two cannot disagree. */
export function motoVersion(): string {
  const pin = /^moto(?:\[[^\]]*\])?==(\S+)/m.exec(readFileSync(REQUIREMENTS, 'utf8'));
  if (pin?.[1] === undefined) throw new StackError(`${REQUIREMENTS} pins no moto version`);
  return pin[1];
}

/** The venv's python (built once into the cache by python-env.sh). */
export async function motoPython(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [join(HERE, 'python-env.sh'), REQUIREMENTS, 'import moto.server, moto.glue, flask_cors'], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const python = stdout.trim().split('\n').pop() ?? '';
      if (error !== null || python === '') {
        reject(new StackError(`moto venv install failed (${error?.message ?? 'no python path printed'}):\n${stderr.split('\n').slice(-60).join('\n')}`));
      } else {
        resolve(python);
      }
    });
  });
}

export async function startMoto(): Promise<RunningService & { endpoint: string }> {
  const python = await motoPython();
  const port = await freePort();
  const launcher = join(runDir(`moto-${port}`), 'moto_glue_server.py');
  writeFileSync(launcher, MOTO_GLUE_LAUNCHER);
  const service = startProcess({ name: `moto-${port}`, command: python, args: [launcher, '-H', '127.0.0.1', '-p', String(port)] });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilReady(service, () => httpOk(`${endpoint}/moto-api/`), READY_TIMEOUT_MS);
  return {
    name: 'moto',
    version: `moto ${motoVersion()}`,
    endpoint,
    env: {
      THUND_TEST_GLUE_ENDPOINT: endpoint,
      THUND_TEST_AWS_ACCESS_KEY: TEST_CREDENTIALS.accessKey,
      THUND_TEST_AWS_SECRET_KEY: TEST_CREDENTIALS.secretKey,
      THUND_TEST_AWS_REGION: TEST_CREDENTIALS.region,
    },
    stop: () => service.stop(),
  };
}

/**
 * moto_server plus the one Glue behaviour moto 5.2.5 lacks and Thund's Glue catalog relies on:
 * UpdateTable with a VersionId that is no longer the table's current version fails with
 * ConcurrentModificationException (moto ignores VersionId and always applies the update). The
 * check and the update run under one lock, as moto serves requests on several threads. Exported
 * so a moto container (THUND_STACK=containers) can run the same launcher.
 */
export const MOTO_GLUE_LAUNCHER = `import sys
import threading

from moto.glue import responses as glue_responses
from moto.glue.exceptions import GlueClientError
from moto.server import main


class ConcurrentModificationException(GlueClientError):
    def __init__(self, message):
        super().__init__("ConcurrentModificationException", message)


_lock = threading.Lock()
_update_table = glue_responses.GlueResponse.update_table


def update_table(self):
    expected = self.parameters.get("VersionId")
    with _lock:
        if expected is not None:
            database_name = self.parameters.get("DatabaseName")
            table_name = (self.parameters.get("TableInput") or {}).get("Name")
            current = str(self.glue_backend.get_table(database_name, table_name)._current_version)
            if expected != current:
                raise ConcurrentModificationException(
                    f"Update table failed due to concurrent modifications: VersionId {expected} is not the current version {current}"
                )
        return _update_table(self)


glue_responses.GlueResponse.update_table = update_table
main(sys.argv[1:])
`;
