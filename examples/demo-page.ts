/**
 * Serves the demo page (web/, built into web/dist/ by `npm run build:web`) at `/` of the example
 * servers. It is part of the examples, not of the middleware: the page is static and talks to the
 * API over HTTP with the key its visitor types in.
 *
 *   app.use(demoPage());      // Express
 *   app.use(demoPageKoa());   // Koa
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import type { Middleware } from 'koa';
import { buildWeb, DEFAULT_OUT_DIR } from '../scripts/build-web.js';

export interface DemoPageOptions {
  /** Folder of the built page. Default web/dist/. */
  root?: string;
  /** Build the page on the first request when `root` has no index.html. Default true. */
  buildIfMissing?: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** Only what the page is made of (its files and the typed client under client/); media and API links go to the middleware. */
const FILE = /^\/(?:(?:client\/)?[a-z0-9][a-z0-9-]*\.(?:html|css|js))?$/;

const HEADERS = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // Scripts and API calls only from this server; images and media may come from a separate publicUrl host.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: https: http:; " +
    "media-src 'self' blob: https: http:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
};

interface Found {
  file: string;
  size: number;
  type: string;
}

/** Resolves a request to a file of the page, or undefined when it is not one (let the next handler answer). */
function resolver(options: DemoPageOptions): (method: string, path: string) => Promise<Found | undefined> {
  const root = options.root ?? DEFAULT_OUT_DIR;
  let build: Promise<unknown> | undefined;
  return async (method, path) => {
    if ((method !== 'GET' && method !== 'HEAD') || !FILE.test(path)) return undefined;
    const name = path === '/' ? 'index.html' : path.slice(1);
    if (options.buildIfMissing !== false) {
      build ??= stat(join(root, 'index.html')).catch(() => {
        console.log(`building the demo page into ${root}…`);
        return buildWeb(root);
      });
      await build;
    }
    const file = join(root, name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    return { file, size: info.size, type: TYPES[extname(name)] ?? 'application/octet-stream' };
  };
}

/** Express (or plain Node `http`) handler for the demo page. */
export function demoPage(options: DemoPageOptions = {}) {
  const find = resolver(options);
  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    find(req.method ?? 'GET', path).then((found) => {
      if (!found) return next();
      res.writeHead(200, { ...HEADERS, 'Content-Type': found.type, 'Content-Length': found.size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(found.file).on('error', next).pipe(res);
    }, next);
  };
}

/** Koa middleware for the demo page. */
export function demoPageKoa(options: DemoPageOptions = {}): Middleware {
  const find = resolver(options);
  return async (ctx, next) => {
    const found = await find(ctx.method, ctx.path);
    if (!found) return next();
    ctx.status = 200;
    ctx.set(HEADERS);
    if (ctx.method !== 'HEAD') ctx.body = createReadStream(found.file);
    ctx.type = found.type;
    ctx.length = found.size;
  };
}
