/**
 * A loopback proxy in front of the REST fixture that vends storage credentials, as a catalog
 * with credential vending would: LoadTableResult answers (load, create, register) get the
 * `config` and `storage-credentials` the test chooses. JSON is re-written int64-safe. `answer`
 * may reply to a request itself instead of forwarding it (a server that refuses something).
 */
import { parseJson, stringifyJson } from '../../../src/iceberg/json.js';
import { startLoopbackServer, type LoopbackServer, type Reply, type SeenRequest } from './loopback-server.js';

export interface Vended {
  readonly config?: Record<string, string>;
  readonly storageCredentials?: { prefix: string; config: Record<string, string> }[];
}

export interface VendingProxy {
  readonly uri: string;
  /** Requests as the proxy received them (headers included). */
  readonly seen: SeenRequest[];
  /** What to add to LoadTableResult answers; may change between calls. */
  vend: (request: SeenRequest) => Vended;
  close(): Promise<void>;
}

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'accept-encoding', 'transfer-encoding', 'keep-alive']);

export async function startVendingProxy(
  upstream: string,
  vend: (request: SeenRequest) => Vended,
  answer: (request: SeenRequest) => Reply | undefined = () => undefined,
): Promise<VendingProxy> {
  const state = { vend };
  const server: LoopbackServer = await startLoopbackServer(async (req) => {
    const own = answer(req);
    if (own !== undefined) return own;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    }
    const response = await fetch(`${upstream.replace(/\/+$/, '')}${req.url}`, {
      method: req.method,
      headers,
      ...(req.body === '' || req.method === 'GET' || req.method === 'HEAD' ? {} : { body: req.body }),
    });
    const text = await response.text();
    if (!response.ok || !returnsLoadTableResult(req) || text === '') return { status: response.status, text };
    const body = parseJson(text, 'fixture LoadTableResult') as Record<string, unknown>;
    const extra = state.vend(req);
    if (extra.config !== undefined) body['config'] = { ...(body['config'] as Record<string, string> | undefined), ...extra.config };
    if (extra.storageCredentials !== undefined) body['storage-credentials'] = extra.storageCredentials;
    return { status: response.status, text: stringifyJson(body) };
  });
  return {
    uri: server.uri,
    seen: server.seen,
    get vend() {
      return state.vend;
    },
    set vend(next) {
      state.vend = next;
    },
    close: () => server.close(),
  };
}

/** Load (GET table), create (POST …/tables) and register (POST …/register). */
function returnsLoadTableResult(req: SeenRequest): boolean {
  const path = req.url.split('?')[0] ?? '';
  if (req.method === 'GET') return /^\/v1\/(.+\/)?namespaces\/[^/]+\/tables\/[^/]+$/.test(path);
  if (req.method === 'POST') return /^\/v1\/(.+\/)?namespaces\/[^/]+\/(tables|register)$/.test(path);
  return false;
}
