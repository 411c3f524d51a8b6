/**
 * A client that misbehaves on purpose at the TCP level: it sends a request's bytes one slice at a time
 * with pauses in between (slow headers, a slowloris), or nothing at all, and records what the broker did.
 */
import net from 'node:net'

/** What a slow client saw. */
export interface SlowExchange {
  /** Everything the broker sent back. */
  text: string
  /** True when the broker closed the connection before the client gave up. */
  closedByServer: boolean
  /** Slices written before the connection ended. */
  slicesSent: number
  /** Milliseconds from connect to the end of the connection. */
  elapsedMs: number
}

/**
 * Connects to `url`, writes `slices` one every `intervalMs` (the first at once; an empty list sends
 * nothing), and waits until the broker closes the connection or `giveUpMs` passes.
 */
export function slowClient(
  url: string,
  slices: readonly string[],
  options: { intervalMs: number; giveUpMs: number },
): Promise<SlowExchange> {
  const target = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect(Number(target.port), target.hostname)
    const parts: Buffer[] = []
    const started = performance.now()
    let sent = 0
    let settled = false
    let ticker: NodeJS.Timeout | undefined
    const finish = (closedByServer: boolean) => {
      if (settled) return
      settled = true
      clearInterval(ticker)
      clearTimeout(giveUp)
      socket.destroy()
      resolve({
        text: Buffer.concat(parts).toString('utf8'),
        closedByServer,
        slicesSent: sent,
        elapsedMs: performance.now() - started,
      })
    }
    const giveUp = setTimeout(() => finish(false), options.giveUpMs)
    const writeNext = () => {
      if (sent < slices.length && !socket.destroyed) socket.write(slices[sent++]!)
    }
    socket.on('connect', () => {
      writeNext()
      ticker = setInterval(writeNext, options.intervalMs)
    })
    socket.on('data', (part: Buffer) => parts.push(part))
    socket.on('end', () => finish(true))
    socket.on('close', () => finish(true))
    // A reset or a broken pipe is the broker closing the connection too.
    socket.on('error', () => finish(true))
  })
}

/** A request head cut into one-character slices after its request line: a slowloris drip. */
export function drippedHead(path: string, headerCount: number): string[] {
  const head = [`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`]
  for (let i = 0; i < headerCount; i++) for (const char of `X-Drip-${i}: ${'d'.repeat(8)}\r\n`) head.push(char)
  return head
}
