/**
 * What the fault tests of the HTTP edge share: a recorder of unhandled rejections and uncaught exceptions, a
 * logger that keeps its lines, raw HTTP requests (sent byte for byte, with a time limit) and the documented
 * answers of the middleware.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../../src/domain/logger.js';

/**
 * Records every unhandled rejection and uncaught exception of this process from now on. With a listener
 * installed Node no longer exits on them, so a test can assert that none happened and go on.
 */
export function recordProcessFaults(): { faults: unknown[]; assertNone(): void } {
  const faults: unknown[] = [];
  process.on('unhandledRejection', (reason) => faults.push(reason));
  process.on('uncaughtException', (error) => faults.push(error));
  return {
    faults,
    assertNone() {
      assert.deepEqual(faults.map(String), [], 'the process saw an unhandled rejection or an uncaught exception');
    },
  };
}

/** One log line. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

/** A {@link Logger} that keeps its lines. */
export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];
  debug(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'debug', message, fields });
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'error', message, fields });
  }
  /** Lines at warn or error level whose message matches. */
  problems(match: RegExp): LogLine[] {
    return this.lines.filter((line) => (line.level === 'warn' || line.level === 'error') && match.test(line.message));
  }
}

/** An HTTP answer as a raw client saw it. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** False when the connection closed before the end of the body. */
  complete: boolean;
}

/**
 * Sends one request on a fresh connection, the path exactly as given (no normalisation), and collects the answer.
 * Rejects when no answer head arrives within `timeoutMs` (a host that died or hangs).
 */
export function send(
  origin: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer | string; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: init.method ?? 'GET', headers: init.headers, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer to ${init.method ?? 'GET'} ${path} within ${init.timeoutMs ?? 10_000} ms`));
    }, init.timeoutMs ?? 10_000);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.end(init.body);
  });
}

/** Statuses the middleware documents (docs/api.md: endpoints; docs/errors.md: the error table). */
export const DOCUMENTED_STATUSES = new Set([200, 201, 206, 400, 403, 404, 405, 410, 413, 415, 416, 429, 500, 503]);

/** The answer is a documented JSON error `{ error: { code, message, details? } }`, with `nosniff`. */
export function assertJsonError(answer: Pick<RawAnswer, 'status' | 'headers' | 'body'>, status?: number, code?: string): void {
  const text = answer.body.toString('utf8');
  if (status !== undefined) assert.equal(answer.status, status, `expected ${status} ${code ?? ''}, got ${answer.status}: ${text}`);
  assert.ok(DOCUMENTED_STATUSES.has(answer.status), `undocumented status ${answer.status}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/, `not JSON: ${text}`);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
  assert.deepEqual(Object.keys(body), ['error'], text);
  const error = body.error!;
  assert.ok(Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k)), text);
  assert.equal(typeof error.code, 'string', text);
  assert.equal(typeof error.message, 'string', text);
  if (error.details !== undefined) assert.ok(Array.isArray(error.details), text);
  if (code !== undefined) assert.equal(error.code, code, text);
}
