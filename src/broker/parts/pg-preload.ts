/**
 * Loads pg without its Cloudflare Workers probe. The first time pg/lib/stream.js is evaluated it asks whether
 * it runs on Cloudflare by constructing a `Response`; on Node 20, which has no `navigator` to answer first,
 * that loads Node's bundled undici (fetch, web streams, its llhttp WebAssembly) into a broker that never uses
 * it: 1 MB of live heap, 1 MB of buffers and 1.7 MB of mapped code in the broker (issue 22). With `Response`
 * hidden while pg loads, the probe answers "not Cloudflare", which is the truth here; the global is put back
 * untouched (still lazy) before anything else runs. Call it before the first module that imports pg.
 */
export async function preloadPg(): Promise<void> {
  const response = Object.getOwnPropertyDescriptor(globalThis, 'Response')
  // Already materialised (something used fetch first) or absent: hiding it would save nothing.
  if (response?.get === undefined) {
    await import('pg')
    return
  }
  Object.defineProperty(globalThis, 'Response', { configurable: true, writable: true, value: undefined })
  try {
    await import('pg')
  } finally {
    Object.defineProperty(globalThis, 'Response', response)
  }
}
