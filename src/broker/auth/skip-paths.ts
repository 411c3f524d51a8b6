/**
 * `JWT_SKIP_PATHS` (docs/operations.md, "Skip paths"). An entry matches a request whose path equals it exactly or, for
 * an entry ending in `/` other than `/` itself, a route under it. The decision uses the route fastify chose, so
 * `/health/../api/v1/push`, `//api/v1/push` or percent-encoded tricks never borrow an exemption: they route to a
 * protected handler (which is then checked) or to a 404.
 */

/**
 * Whether a request is exempt. `route` is the pattern of the route that will handle it
 * (`request.routeOptions.url`); `path` is the request's own path without the query string, compared
 * exactly (the router handled that very string, so an exact match cannot name another route).
 */
export function isSkipPath(skipPaths: readonly string[], route: string, path: string): boolean {
  return skipPaths.some((entry) => {
    if (entry === route || entry === path) return true
    return entry !== '/' && entry.endsWith('/') && route.startsWith(entry)
  })
}
