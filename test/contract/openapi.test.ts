/**
 * The OpenAPI document as a contract: the served document validates with swagger-parser (every `$ref`
 * resolves), openapi-typescript reads it, it lists exactly the routes of the route table (and the table
 * exactly its operations), and it documents every status the pipeline and the handlers answer, with the
 * error shape and codes. Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPIV3_1 } from 'openapi-types';
import { buildRoutes } from '../../src/core/api/routes.js';
import type { ApiDeps } from '../../src/core/api/deps.js';
import { ERROR_STATUSES } from '../../src/core/api/error-codes.js';
import { openApiPath } from '../../src/core/api/openapi.js';
import { servedOpenApi } from '../../src/core/api/served-openapi.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { useHarness } from '../helpers/harness.js';
import { KindRegistry } from '../../src/core/kinds/registry.js';

useHarness();

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The route table of an instance with the test apps' settings (metrics on, default paging). */
function routeTable(): { method: string; path: string; access: string }[] {
  const deps = {
    paging: { defaultPerPage: 20, maxPerPage: 100 },
    metrics: { path: '/metrics', scrape: async () => ({ contentType: '', text: '' }) },
    kinds: new KindRegistry(),
  };
  return buildRoutes(deps as unknown as ApiDeps).map((r) => ({ method: r.method.toLowerCase(), path: openApiPath(r.pattern), access: r.access }));
}

/** Every operation of the document as `method path`. */
function operations(doc: Document): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (operation) found.set(`${method} ${path}`, operation);
    }
  }
  return found;
}

for (const adapter of ADAPTERS) {
  describe(`OpenAPI document over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let doc: Document;
    before(async () => {
      app = await makeApp(adapter, { metrics: true });
      const res = await app.http.get('/v1/openapi.json');
      assert.equal(res.status, 200, res.text);
      doc = res.body as Document;
    });
    after(() => app.close());

    it('is valid OpenAPI 3.1 by swagger-parser (every $ref resolves)', async () => {
      assert.equal(doc.openapi, '3.1.0');
      assert.doesNotMatch(JSON.stringify(doc), /#\/\$defs\//);
      await SwaggerParser.validate(structuredClone(doc) as never);
    });

    it('is what servedOpenApi builds for the same options, less `servers` (the client types are generated from it)', () => {
      const { servers, ...served } = doc;
      assert.deepEqual(servers, [{ url: app.origin }]);
      assert.deepEqual(served, JSON.parse(JSON.stringify(servedOpenApi({ apiKeys: ['documentation'], metrics: true }))));
    });

    it('is read by openapi-typescript into types of every path and schema', async () => {
      const types = astToString(await openapiTS(structuredClone(doc) as never));
      for (const path of ['/v2/2davatar/{id}', '/v1/sourceSeparations/{source_separation_id}', '/files/{id}/{name}', '/readyz']) {
        assert.ok(types.includes(`"${path}": {`), `${path} in the generated types`);
      }
      const schemas = types.slice(types.indexOf('    schemas: {'));
      assert.match(schemas, /\n {8}AvatarVideo: \{((?!\n {8}\}).)*\n {12}progress\?: number;/s);
      assert.match(schemas, /\n {8}Error: \{\s*error: \{\s*code: string;\s*message: string;\s*details\?:/s);
    });

    it('lists exactly the routes of the route table, with the right security', () => {
      const table = routeTable();
      const documented = operations(doc);
      const routes = new Set(table.map((r) => `${r.method} ${r.path}`));
      assert.deepEqual([...documented.keys()].sort(), [...routes].sort());
      for (const route of table) {
        const security = documented.get(`${route.method} ${route.path}`)!.security;
        assert.deepEqual(security, route.access === 'key' ? [{ ApiKey: [] }] : [], `${route.method} ${route.path} security`);
      }
      assert.deepEqual(doc.components?.securitySchemes?.ApiKey, { type: 'apiKey', in: 'header', name: 'key', description: 'API key, bare or as `Bearer <key>`' });
    });

    it('documents every status with the error shape, its codes and headers', () => {
      const all = operations(doc);
      for (const [name, operation] of all) {
        for (const status of ['405', '500', '503']) assert.ok(operation.responses?.[status], `${name}: ${status}`);
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          const body = (response as OpenAPIV3_1.ResponseObject).content?.['application/json']?.schema;
          assert.deepEqual(body, { $ref: '#/components/schemas/Error' }, `${name} ${status} body`);
          for (const code of Object.keys(ERROR_STATUSES[Number(status)]!.codes)) {
            assert.ok((response as OpenAPIV3_1.ResponseObject).description.includes(`\`${code}\``), `${name} ${status} names ${code}`);
          }
        }
      }
      const header = (key: string, status: string) => (all.get(key)!.responses![status] as OpenAPIV3_1.ResponseObject).headers ?? {};
      assert.ok(header('get /v2/2davatar', '405').allow, 'Allow on 405');
      assert.ok(header('post /v1/sourceSeparations', '429')['retry-after'], 'Retry-After on 429');
      const file = all.get('get /files/{id}/{name}')!;
      assert.deepEqual(Object.keys(file.responses!).sort(), ['200', '206', '403', '405', '410', '416', '500', '503']);
      assert.ok(header('get /files/{id}/{name}', '416')['content-range'], 'Content-Range on 416');
      assert.ok(header('get /files/{id}/{name}', '206')['content-range'], 'Content-Range on 206');
      assert.deepEqual(Object.keys(all.get('post /v2/2davatar')!.responses!).sort(), ['201', '400', '403', '405', '409', '413', '415', '422', '429', '500', '503']);
      for (const cancel of ['post /v2/2davatar/{id}/cancel', 'post /v1/sourceSeparations/{source_separation_id}/cancel']) {
        assert.deepEqual(Object.keys(all.get(cancel)?.responses ?? {}).sort(), ['200', '403', '404', '405', '409', '429', '500', '503'], cancel);
      }
      for (const create of ['post /v2/2davatar', 'post /v1/sourceSeparations', 'post /v1/uploads']) {
        const parameters = (all.get(create)!.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
        assert.ok(parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'), `${create} documents Idempotency-Key`);
        assert.ok((all.get(create)!.responses!['422'] as OpenAPIV3_1.ResponseObject).description.includes('`idempotency_key_reused`'));
      }
      const webhooks = (doc as OpenAPIV3_1.Document).webhooks ?? {};
      assert.deepEqual(Object.keys(webhooks).sort(), ['avatarVideoEnded', 'sourceSeparationEnded']);
      for (const code of ['validation_failed', 'unknown_avatar', 'forbidden_address', 'missing_file']) {
        assert.ok(code in ERROR_STATUSES[400]!.codes, code);
      }
    });

    it('answers the documented error shape on a documented status (405 with Allow)', async () => {
      const res = await app.http.delete('/v1/sourceSeparations').set('key', KEYS.a);
      assertError(res, 405, 'method_not_allowed');
      assert.equal(res.headers.allow, 'POST, GET');
      assert.ok(operations(doc).get('post /v1/sourceSeparations')!.responses!['405']);
    });
  });
}
