/**
 * The stack's setup runs outside the tests' environment, where vitest.config.ts turns the AWS SDK's
 * Node version notice off; the S3 clients it makes must not print it either.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

it('makes the stack’s S3 clients without the AWS SDK’s Node version notice', () => {
  const work = mkdtempSync(join(tmpdir(), 'thund-sdk-notice-'));
  try {
    const script = join(work, 'client.mts');
    const module = pathToFileURL(resolve('test/stack/s3-env.ts')).href;
    writeFileSync(
      script,
      `import { stackS3Client } from ${JSON.stringify(module)};\n` +
        `stackS3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });\n` +
        `console.log('client made');\n`,
    );
    const env = { ...process.env };
    delete env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'];
    const run = spawnSync(resolve('node_modules/.bin/tsx'), [script], { env, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout).toContain('client made');
    expect(run.stderr).not.toContain('NodeVersionSupportWarning');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
