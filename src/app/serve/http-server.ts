/**
 * The service's HTTP face: GET /healthz (the process runs), /readyz (200 when it can make
 * progress; 503 with the reasons otherwise, readiness.ts), /metrics (Prometheus text), /status (what it is doing, as
 * JSON) and / (the same as a page for people, status-page.ts). Nothing else is served.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadinessState } from './readiness.js';
import type { ServeStatusReport } from './serve-status.js';
import { renderStatusPage } from './status-page.js';

/** Each answers from what the service already knows, at once: none waits on Kafka, the catalog or storage. */
export interface HttpHandlers {
  ready(): ReadinessState;
  metrics(): string;
  status(): ServeStatusReport;
}

export async function startHttpServer(host: string, port: number, handlers: HttpHandlers): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string): void => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    const answer = async (): Promise<void> => {
      switch (path) {
        case '/healthz':
          return send(200, 'text/plain', 'ok\n');
        case '/readyz': {
          const state = handlers.ready();
          return send(state.ready ? 200 : 503, 'application/json', `${JSON.stringify(state)}\n`);
        }
        case '/metrics':
          return send(200, 'text/plain; version=0.0.4; charset=utf-8', handlers.metrics());
        case '/status':
          return send(200, 'application/json', `${JSON.stringify(handlers.status(), null, 2)}\n`);
        case '/':
          return send(200, 'text/html; charset=utf-8', renderStatusPage(handlers.status()));
        default:
          return send(404, 'text/plain', 'not found\n');
      }
    };
    answer().catch((error: unknown) => send(500, 'text/plain', `${error instanceof Error ? error.message : String(error)}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
