import type { CoreRequest, CoreResponse } from './types.js';
import type { RouteDoc } from './route-doc.js';

/** What a route handler receives: the request, the matched path parameters and the caller's identity. */
export interface RouteContext {
  request: CoreRequest;
  params: Record<string, string>;
  /** Owner id (hash of the API key); empty for public routes. */
  owner: string;
  /** Base URL for links in responses (public URL or origin + mount path + base path). */
  baseUrl: string;
}

/** One entry of the route table. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'HEAD';
  /** Path pattern with `:name` parameters, e.g. `/v2/avatar/:uid`. */
  pattern: string;
  /** `key` routes need a valid API key; `public` routes do not (OpenAPI document, signed file links). */
  access: 'key' | 'public';
  /** API family for the per-key request concurrency limit. */
  family: 'v1' | 'v2' | 'none';
  /** Whether the route reads a JSON body (then `Content-Type: application/json` is required). */
  jsonBody?: boolean;
  /** Runs without waiting for start-up (and while start-up has failed): health probes. */
  whileStarting?: boolean;
  /** What the OpenAPI document says about the route (generated from these). */
  doc: RouteDoc;
  handle(context: RouteContext): Promise<CoreResponse>;
}

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

/** Result of matching a path against the table. */
export type RouteMatch =
  | { kind: 'match'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'none' };

/** The route table, compiled once. Both adapters mount this one table. */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.pattern
        .split('/')
        .map((segment) => {
          if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(segment.slice(1));
          return '([^/]+)';
        })
        .join('/');
      return { route, names, regex: new RegExp(`^${source}/?$`) };
    });
  }

  match(method: string, path: string): RouteMatch {
    const allowed: string[] = [];
    for (const { route, regex, names } of this.compiled) {
      const found = regex.exec(path);
      if (!found) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        const params: Record<string, string> = {};
        for (let i = 0; i < names.length; i++) params[names[i]!] = safeDecode(found[i + 1]!);
        return { kind: 'match', route, params };
      }
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'none' };
  }
}

function safeDecode(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
