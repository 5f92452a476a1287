import { Router, type Route } from '../http/router.js';

/**
 * The routes of a table that no request reaches because a route before them answers it (a job kind's path that is a
 * built-in route's, or lies under another route's item path), each tried with a path it serves; one line each.
 */
export function shadowedRoutes(routes: readonly Route[]): string[] {
  const router = new Router(routes);
  const problems: string[] = [];
  for (const route of routes) {
    const found = router.match(route.method, route.pattern.replace(/:[^/]+/g, 'sample-id'));
    if (found.kind === 'match' && found.route !== route) {
      problems.push(`${route.method} ${route.pattern} is never reached: ${found.route.method} ${found.route.pattern} answers it first`);
    }
  }
  return problems;
}
