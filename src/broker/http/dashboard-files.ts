/**
 * The web dashboard's files (docs/http-api.md, "Unknown routes"; docs/dashboard.md): `GET /` and `GET /assets/*`
 * serve the build in dist/dashboard/, and the not-found handler answers other unmatched GETs outside the API
 * prefixes with index.html (the SPA fallback). Files are public by construction: they hold no data.
 *
 * Only names found in the build folder when the broker starts are served: a request path is looked up in that
 * list, never joined onto a file path, so `..`, encoded slashes or symbolic tricks cannot reach another file.
 * Each file is sent as its precompressed `.br` or `.gz` sibling when the client accepts it.
 */
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyReply } from 'fastify'

/**
 * Where `npm run build` puts the dashboard: dist/dashboard/ at the package root, which is three folders above
 * this module both as source (src/broker/http/) and compiled (dist/broker/http/).
 */
export const BUILT_DASHBOARD_DIR = fileURLToPath(new URL('../../../dist/dashboard/', import.meta.url))

/** Same-origin only: no inline script or style, no other host, never framed (docs/dashboard.md, "Security"). */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Hashed assets never change under their name; index.html names the current ones, so it is revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

type Encoding = 'br' | 'gzip'

interface DashboardFile {
  /** Absolute path of the file as built. */
  path: string
  contentType: string
  /** Precompressed siblings found next to it. */
  encodings: ReadonlySet<Encoding>
}

/** The dashboard build a broker serves. */
export interface DashboardFiles {
  /** The folder read at start. */
  readonly dir: string
  /** Whether the folder holds a build (an index.html); without one, the dashboard's URLs answer 404. */
  readonly built: boolean
  /**
   * Sends `name` (`index.html` or `assets/...`, as listed in the build) with its headers, picking a
   * precompressed sibling from `acceptEncoding`; resolves false, sending nothing, when there is no such file.
   */
  send(reply: FastifyReply, name: string, acceptEncoding: string | undefined): Promise<boolean>
}

/** Lists the build in `dir` (missing or empty: `built` is false and nothing is served). */
export function loadDashboardFiles(dir: string): DashboardFiles {
  const files = new Map<string, DashboardFile>()
  let names: string[] = []
  try {
    names = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
  } catch {
    // No build here: served as not built.
  }
  const present = new Set(names)
  for (const name of names) {
    if (name.endsWith('.gz') || name.endsWith('.br')) continue
    if (name !== 'index.html' && !name.startsWith('assets/')) continue
    const encodings = new Set<Encoding>()
    if (present.has(`${name}.br`)) encodings.add('br')
    if (present.has(`${name}.gz`)) encodings.add('gzip')
    files.set(name, {
      path: path.join(dir, ...name.split('/')),
      contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
      encodings,
    })
  }
  return {
    dir,
    built: files.has('index.html'),
    async send(reply, name, acceptEncoding) {
      const file = files.get(name)
      if (file === undefined) return false
      const encoding = pickEncoding(file.encodings, acceptEncoding)
      const body = await readFile(
        encoding === undefined ? file.path : `${file.path}.${encoding === 'br' ? 'br' : 'gz'}`,
      )
      void reply
        .code(200)
        .header('Content-Type', file.contentType)
        .header('Cache-Control', name === 'index.html' ? REVALIDATE : IMMUTABLE)
        .header('Vary', 'Accept-Encoding')
        .header('Content-Security-Policy', DASHBOARD_CSP)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Referrer-Policy', 'no-referrer')
      if (encoding !== undefined) void reply.header('Content-Encoding', encoding)
      await reply.send(body)
      return true
    },
  }
}

/**
 * The best precompressed encoding the client accepts: brotli, then gzip; `q=0` refuses one, `*` accepts any
 * not named. Undefined sends the file as it is.
 */
export function pickEncoding(
  available: ReadonlySet<Encoding>,
  acceptEncoding: string | undefined,
): Encoding | undefined {
  if (acceptEncoding === undefined || available.size === 0) return undefined
  const weights = new Map<string, number>()
  for (const part of acceptEncoding.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    if (token !== '') weights.set(token, Number.isFinite(weight) ? weight : 0)
  }
  const accepted = (encoding: string) => (weights.get(encoding) ?? weights.get('*') ?? 0) > 0
  return (['br', 'gzip'] as const).find((encoding) => available.has(encoding) && accepted(encoding))
}
