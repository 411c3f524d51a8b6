/**
 * faultproxy (docs/reliability.md, "The ledger"): a TCP proxy between brokers and PostgreSQL that a test switches
 * between `pass`, `refuse` (new connections are reset, open ones cut: PostgreSQL is down) and `blackhole`
 * (bytes accepted and dropped, no reset: a silent network loss). No root privileges needed.
 *
 * It is also the one address that follows the primary (issue 38), as a Kubernetes Service does: `setTarget`
 * sends new connections to another server and, like a Service, leaves open ones where they are unless told
 * to cut them. `setDelayMs` holds every chunk that long in each direction, in order: latency at the TCP
 * level, for kernels without `sch_netem`.
 */
import net from 'node:net'
import { trackResource } from './resources.js'

/** Behaviour of the proxy. */
export type FaultMode = 'pass' | 'refuse' | 'blackhole'

/** Where the proxy forwards to. */
export interface ProxyTarget {
  host: string
  port: number
}

/** A running proxy. */
export interface FaultProxy {
  port: number
  mode: FaultMode
  target: ProxyTarget
  /** Connections currently forwarded. */
  readonly openLinks: number
  setMode(mode: FaultMode): void
  /** New connections go to `target`; with `cut`, open ones are reset (the old server is gone). */
  setTarget(target: ProxyTarget, options?: { cut?: boolean }): void
  /** Added latency, each direction, ms (0: none). */
  setDelayMs(ms: number): void
  close(): Promise<void>
}

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Address to listen on; default 127.0.0.1. */
  host?: string
  /** Port to listen on; default a free one. */
  port?: number
}

interface Link {
  client: net.Socket
  upstream: net.Socket
}

/** Starts a proxy forwarding to `target`, on 127.0.0.1 unless `options.host` says otherwise. */
export async function startFaultProxy(target: ProxyTarget, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const links = new Set<Link>()
  let mode: FaultMode = 'pass'
  let current = target
  let delayMs = 0
  const server = net.createServer((client) => {
    if (mode === 'refuse') {
      client.resetAndDestroy()
      return
    }
    const upstream = net.connect(current.port, current.host)
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
    const toUpstream = delayedWriter(upstream, () => delayMs)
    const toClient = delayedWriter(client, () => delayMs)
    client.on('data', (chunk) => {
      if (mode === 'pass') toUpstream(chunk)
    })
    upstream.on('data', (chunk) => {
      if (mode === 'pass') toClient(chunk)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve)
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const untrack = trackResource(`fault proxy :${port}`)
  const cutAll = () => {
    for (const link of links) {
      link.client.resetAndDestroy()
      link.upstream.destroy()
    }
    links.clear()
  }
  return {
    port,
    get mode() {
      return mode
    },
    get target() {
      return current
    },
    get openLinks() {
      return links.size
    },
    setMode(next) {
      mode = next
      if (next === 'refuse') cutAll()
    },
    setTarget(next, setOptions = {}) {
      current = next
      if (setOptions.cut) cutAll()
    },
    setDelayMs(ms) {
      delayMs = ms
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

/** Writes chunks to `socket` after `delay()` ms each, in order; at once while there is no delay and no backlog. */
function delayedWriter(socket: net.Socket, delay: () => number): (chunk: Buffer) => void {
  const queue: { due: number; chunk: Buffer }[] = []
  let timer: NodeJS.Timeout | undefined
  const drain = () => {
    timer = undefined
    const now = Date.now()
    while (queue.length > 0 && queue[0]!.due <= now) {
      if (!socket.destroyed) socket.write(queue.shift()!.chunk)
      else queue.shift()
    }
    if (queue.length > 0) timer = setTimeout(drain, Math.max(1, queue[0]!.due - now))
  }
  return (chunk) => {
    const ms = delay()
    if (ms <= 0 && queue.length === 0) {
      socket.write(chunk)
      return
    }
    queue.push({ due: Date.now() + Math.max(0, ms), chunk })
    timer ??= setTimeout(drain, Math.max(1, ms))
  }
}
