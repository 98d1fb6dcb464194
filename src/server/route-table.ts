/**
 * The routes the server has, by path pattern, so that a wrong method on a known path can be told from an
 * unknown path: fastify answers both with its not-found handler.
 */

import type { RouteOptions } from 'fastify';

interface RoutePattern {
  readonly regex: RegExp;
  readonly methods: Set<string>;
}

/** `/api/v1/streams/:applicationId/stop` → a regex over concrete paths (a trailing slash is ignored, as by the router). */
function patternRegex(url: string): RegExp {
  const body = url
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${body}/?$`);
}

export class RouteTable {
  private readonly patterns = new Map<string, RoutePattern>();

  add(route: Pick<RouteOptions, 'method' | 'url'>): void {
    // A catch-all (@fastify/cors's OPTIONS route, there only to let preflights through) makes no path known.
    if (route.url === '*' || route.url === '/*') return;
    let pattern = this.patterns.get(route.url);
    if (pattern === undefined) {
      pattern = { regex: patternRegex(route.url), methods: new Set() };
      this.patterns.set(route.url, pattern);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      pattern.methods.add(method.toUpperCase());
      // fastify answers HEAD for every GET route.
      if (method.toUpperCase() === 'GET') pattern.methods.add('HEAD');
    }
  }

  /** The methods served on a concrete path, sorted; empty for an unknown path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const pattern of this.patterns.values()) {
      if (pattern.regex.test(path)) for (const method of pattern.methods) methods.add(method);
    }
    return [...methods].sort();
  }
}
