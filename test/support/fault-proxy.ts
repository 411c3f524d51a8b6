/**
 * faultproxy (docs/reliability.md, "The ledger"): a TCP proxy between brokers and PostgreSQL that a test switches
 * between `pass`, `refuse` (new connections are reset, open ones cut: PostgreSQL is down) and `blackhole`
 * (bytes accepted and dropped, no reset: a silent network loss). No root privileges needed.
 */
import net from 'node:net'
import { trackResource } from './resources.js'

/** Behaviour of the proxy. */
export type FaultMode = 'pass' | 'refuse' | 'blackhole'

/** A running proxy. */
export interface FaultProxy {
  port: number
  mode: FaultMode
  setMode(mode: FaultMode): void
  close(): Promise<void>
}

/** Starts a proxy on 127.0.0.1 forwarding to `target`. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const links = new Set<{ client: net.Socket; upstream: net.Socket }>()
  let mode: FaultMode = 'pass'
  const server = net.createServer((client) => {
    if (mode === 'refuse') {
      client.resetAndDestroy()
      return
    }
    const upstream = net.connect(target.port, target.host)
    const link = { client, upstream }
    links.add(link)
    const drop = () => {
      links.delete(link)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop)
    upstream.on('error', drop)
    client.on('close', drop)
    upstream.on('close', drop)
    client.on('data', (chunk) => {
      if (mode === 'pass') upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      if (mode === 'pass') client.write(chunk)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const untrack = trackResource(`fault proxy :${port}`)
  return {
    port,
    get mode() {
      return mode
    },
    setMode(next) {
      mode = next
      if (next === 'refuse') {
        for (const link of links) {
          link.client.resetAndDestroy()
          link.upstream.destroy()
        }
        links.clear()
      }
    },
    async close() {
      for (const link of links) {
        link.client.destroy()
        link.upstream.destroy()
      }
      await new Promise<void>((resolve) => server.close(() => resolve()))
      untrack()
    },
  }
}
