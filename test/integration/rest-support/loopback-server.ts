/**
 * A node:http server on 127.0.0.1 for REST catalog tests: every request is recorded (method,
 * URL, headers, body) and answered by the test's handler, which may also drop the connection.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Reply {
  readonly status: number;
  readonly json?: unknown;
  /** Raw body text (wins over json). */
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Destroy the socket without answering (a lost response). */
  readonly drop?: boolean;
}

export type Handler = (request: SeenRequest) => Reply | Promise<Reply>;

export interface LoopbackServer {
  readonly uri: string;
  readonly seen: SeenRequest[];
  handler: Handler;
  close(): Promise<void>;
}

export async function startLoopbackServer(handler: Handler): Promise<LoopbackServer> {
  const seen: SeenRequest[] = [];
  const state = { handler };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      Promise.resolve()
        .then(() => state.handler(request))
        .then(
          (reply) => send(res, reply),
          (error: unknown) => send(res, { status: 500, json: { error: { message: String(error), type: 'TestHandlerError', code: 500 } } }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    uri: `http://127.0.0.1:${port}`,
    seen,
    get handler() {
      return state.handler;
    },
    set handler(next: Handler) {
      state.handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.drop === true) {
    res.socket?.destroy();
    return;
  }
  const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
  res.writeHead(reply.status, { ...(body === '' ? {} : { 'content-type': 'application/json' }), ...reply.headers });
  res.end(body);
}
