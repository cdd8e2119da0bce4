// The image's HEALTHCHECK. A container running `thund serve` is healthy while its /healthz answers
// 200 within 2 s (on --http-port, THUND_SERVE_HTTP_PORT or 9464); any other command (`thund run`,
// `maintain`, …) has no HTTP face and is healthy while it runs. The command line is PID 1's (tini's).
import { readFileSync } from 'node:fs';

const args = readFileSync('/proc/1/cmdline', 'utf8').split('\0');
if (!args.includes('serve')) process.exit(0);
const flag = args.indexOf('--http-port');
const port = (flag >= 0 ? args[flag + 1] : undefined) ?? process.env.THUND_SERVE_HTTP_PORT ?? '9464';
try {
  const answer = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
  process.exit(answer.ok ? 0 : 1);
} catch {
  process.exit(1);
}
