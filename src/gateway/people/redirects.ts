/**
 * Where sign-in may send a browser back to (docs/gateway.md, "People: users, sessions and sign-in"): only hosts of
 * `PROXY_AUTH_REDIRECT_ALLOWLIST`, so the gateway is never an open redirect. An empty list allows no host: it fails
 * closed.
 */

/** Whether `host` (a URL's host name, without port) is on the list; `.example.com` matches its subdomains. */
export function hostAllowed(host: string, allowlist: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  return allowlist.some((entry) =>
    entry.startsWith('.') ? name.endsWith(entry) && name.length > entry.length : name === entry,
  )
}

/** `rd` as an absolute http(s) URL on an allowed host, or undefined. */
export function allowedTarget(rd: string | undefined, allowlist: readonly string[]): URL | undefined {
  if (rd === undefined || rd === '') return undefined
  let url: URL
  try {
    url = new URL(rd)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  if (url.username !== '' || url.password !== '') return undefined
  return hostAllowed(url.hostname, allowlist) ? url : undefined
}

/** Where the sign-in page goes after success: an allowed `rd`, a path on this host, or the dashboard at `/`. */
export function afterSignIn(rd: string | undefined, allowlist: readonly string[]): string {
  if (rd !== undefined && /^\/(?![/\\])/.test(rd)) return rd
  return allowedTarget(rd, allowlist)?.href ?? '/'
}
