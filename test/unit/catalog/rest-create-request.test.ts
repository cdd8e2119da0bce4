/**
 * The create-table request as servers nobody here wrote parse it: Nessie refuses a body without
 * `stage-create` (its request type requires the field; the spec makes it optional, default false),
 * so a plain create says `false` and a staged one `true`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { parseJson } from '../../../src/iceberg/json.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { configBody, loadTableBody } from '../../integration/rest-support/fake-rest.js';
import { startLoopbackServer, type LoopbackServer } from '../../integration/rest-support/loopback-server.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields: [{ id: 1, name: 'id', required: false, type: primitive('long') }] };
const id = { namespace: ['db'], name: 't' };

describe('REST create-table request', () => {
  it('always sends stage-create: false for a plain create, true for a staged one', async () => {
    const server = await startLoopbackServer((req) => {
      if (req.url.startsWith('/v1/config')) return { status: 200, json: configBody() };
      if (req.method === 'POST' && req.url === '/v1/namespaces/db/tables') return { status: 200, json: loadTableBody('s3://b/db/t') };
      return { status: 400, json: { error: { message: 'unexpected', type: 'BadRequest', code: 400 } } };
    });
    servers.push(server);
    const catalog = await RestCatalog.connect({ uri: server.uri, io: new LocalFileIO() });
    await catalog.createTable(id, { schema });
    await catalog.stageCreateTable(id, { schema });
    const creates = server.seen.filter((req) => req.method === 'POST').map((req) => parseJson(req.body, 'create body') as Record<string, unknown>);
    expect(creates.map((body) => body['stage-create'])).toEqual([false, true]);
  });
});
