/**
 * The HTTP adapter contract suite (`virtual-anchor/testing`) on the Express and Koa adapters, and on a bare
 * `node:http` adapter written here from the exported pieces only (CoreRequest, `instance.handle`, `sendResponse`),
 * which shows that an adapter for a third framework can pass it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import Koa from 'koa';
import { clientGoneSignal, loggerOf, sendResponse, virtualAnchorKoa, type CoreRequest, type VirtualAnchor } from '../../src/index.js';
import { adapterSuite, type MountSettings } from '../../src/testing/adapter-suite.js';
import { BINARIES } from '../helpers/media.js';
import { koaJsonBody } from '../helpers/apps.js';
import { listen, mountExpress } from '../helpers/adapter-hosts.js';

const instanceOptions = { logger: false as const, ...BINARIES };

adapterSuite('Express', { describe, it, instanceOptions, mount: mountExpress });

adapterSuite('Koa', {
  describe,
  it,
  instanceOptions,
  mount: (instance, { jsonBodyParser, fallback }) => {
    const app = new Koa();
    app.on('error', (error: Error & { code?: string }) => {
      // A download the client left is not an app error; anything else fails the test run loudly.
      if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE' && error.code !== 'ECONNRESET') console.error('Koa app error:', error);
    });
    if (jsonBodyParser) app.use(koaJsonBody);
    app.use(virtualAnchorKoa(instance));
    app.use((ctx) => {
      ctx.respond = false;
      fallback(ctx.req, ctx.res);
    });
    return listen(createServer(app.callback()));
  },
});

/** Reads a JSON body as a host body parser would; `undefined` when it is not JSON. */
async function parseJson(req: IncomingMessage): Promise<{ value: unknown } | 'invalid'> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return 'invalid';
  }
}

/** A whole adapter for bare node:http: copy the request in, write the answer out with the guarded writer. */
function nodeHttpAdapter(instance: VirtualAnchor, { jsonBodyParser, fallback }: MountSettings) {
  const logger = loggerOf(instance);
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://host');
    let parsedBody: unknown;
    if (jsonBodyParser && /^application\/json/.test(req.headers['content-type'] ?? '')) {
      const parsed = await parseJson(req);
      if (parsed === 'invalid') {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid JSON (host)');
        return;
      }
      parsedBody = parsed.value;
    }
    const request: CoreRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      origin: `http://${req.headers.host ?? 'localhost'}`,
      mountPath: '',
      bodyStream: req,
      parsedBody,
      signal: clientGoneSignal(res),
    };
    const response = await instance.handle(request);
    if (response) await sendResponse(res, response, logger);
    else fallback(req, res);
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch((error: unknown) => {
      logger.error('the node:http adapter failed', { error: String(error) });
      res.destroy();
    });
  };
}

adapterSuite('bare node:http', {
  describe,
  it,
  instanceOptions,
  mount: (instance, settings) => listen(createServer(nodeHttpAdapter(instance, settings))),
});
