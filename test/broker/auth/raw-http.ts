/**
 * HTTP with the request target sent byte for byte: `fetch` normalises `..`, `%2e%2e` and `//` before
 * sending, which would hide exactly the tricks the skip-path tests need to send.
 */
import { request } from 'node:http'

/** Sends `method target` as written; returns status and parsed JSON body (or text). */
export function rawRequest(
  baseUrl: string,
  method: string,
  target: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(baseUrl)
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path: target,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let body: unknown = text
          try {
            body = text === '' ? undefined : JSON.parse(text)
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}
