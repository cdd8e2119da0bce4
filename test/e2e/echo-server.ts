/**
 * A hostile-but-honest server on 127.0.0.1: every request it refuses gets an error whose message
 * repeats the request — method, URL, every header and the body — in the error shape of the
 * protocol asked for (Iceberg REST, AWS JSON (Glue), S3 XML, schema registry). Routes may answer
 * otherwise (e.g. an OAuth2 token endpoint). What a client prints of that error shows whether it
 * scrubs the secrets it sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type EchoStyle = 'iceberg-rest' | 'aws-json' | 's3-xml' | 'schema-registry';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RouteAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
}

/** An answer of its own for a request, or undefined to refuse it with the echo. */
export type Route = (request: ReceivedRequest) => RouteAnswer | undefined;

export interface EchoServer {
  readonly url: string;
  readonly requests: readonly ReceivedRequest[];
  close(): Promise<void>;
}

export async function startEchoServer(style: EchoStyle, status: number, route: Route = () => undefined): Promise<EchoServer> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const request = received(req, body);
      requests.push(request);
      const answer = route(request) ?? refusal(style, status, echo(request));
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json', ...(style === 'aws-json' ? { 'x-amzn-errortype': 'AccessDeniedException' } : {}) });
      res.end(req.method === 'HEAD' ? undefined : answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The request as the server saw it: `GET /v1/config authorization=Bearer … | body …`. */
export function echo(request: ReceivedRequest): string {
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}=${value}`);
  return `bad request ${request.method} ${request.url} ${headers.join(' ')} | body ${request.body}`;
}

function refusal(style: EchoStyle, status: number, message: string): RouteAnswer {
  switch (style) {
    case 'iceberg-rest':
      return { status, body: JSON.stringify({ error: { message, type: 'NotAuthorizedException', code: status } }) };
    case 'aws-json':
      return { status, body: JSON.stringify({ __type: 'AccessDeniedException', Message: message }), contentType: 'application/x-amz-json-1.1' };
    case 's3-xml':
      return { status, body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${escapeXml(message)}</Message></Error>`, contentType: 'application/xml' };
    case 'schema-registry':
      return { status, body: JSON.stringify({ error_code: status * 100 + 1, message }) };
  }
}

function received(req: IncomingMessage, body: string): ReceivedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return { method: req.method ?? '', url: req.url ?? '', headers, body };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
