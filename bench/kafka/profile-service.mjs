// Preloaded into the `thund serve` child by bench/kafka/run.ts --cpu-prof-dir (node refuses
// --cpu-prof in NODE_OPTIONS): writes a CPU profile at exit and memory samples every 500 ms.
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const dir = process.env.THUND_BENCH_PROFILE_DIR;
if (dir && process.argv.some((arg) => arg.endsWith('bin/thund.js'))) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  // An in-thread inspector session answers synchronously, so the profile is written before exit.
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(`${dir}/serve-${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
  const startedAt = Date.now();
  const mib = (bytes) => Math.round(bytes / 1048576);
  setInterval(() => {
    const m = process.memoryUsage();
    const at = ((Date.now() - startedAt) / 1000).toFixed(1);
    appendFileSync(`${dir}/memory-${process.pid}.txt`, `${at} rss ${mib(m.rss)} heapUsed ${mib(m.heapUsed)} heapTotal ${mib(m.heapTotal)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)}\n`);
  }, 500).unref();
}
