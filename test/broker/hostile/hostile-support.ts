/**
 * Shared pieces of the hostile-input suites: a fingerprint of every table a request could change (so a
 * refused request can be shown to have stored nothing), and senders for requests fetch cannot make.
 */
import net from 'node:net'
import type pg from 'pg'
import { snapshot, type DbSnapshot } from '../http/edge-helpers.js'

/** {@link DbSnapshot} plus the tables of dedup, streams, trace names and system flags. */
export interface StoredState extends DbSnapshot {
  dedupEntries: number
  streamQueries: number
  streamState: number
  traceNames: number
  systemState: string
}

/** Reads a {@link StoredState} of the broker's database. */
export async function storedState(db: pg.Pool): Promise<StoredState> {
  const base = await snapshot(db)
  const { rows } = await db.query<Omit<StoredState, keyof DbSnapshot>>(`
    SELECT
      (SELECT count(*)::int FROM queen.dedup_entries) AS "dedupEntries",
      (SELECT count(*)::int FROM queen.stream_queries) AS "streamQueries",
      (SELECT count(*)::int FROM queen.stream_state) AS "streamState",
      (SELECT count(*)::int FROM queen.trace_names) AS "traceNames",
      (SELECT coalesce(string_agg(t::text, ';' ORDER BY t::text), '') FROM queen.system_state t) AS "systemState"
  `)
  return { ...base, ...rows[0]! }
}

/** The first HTTP response in raw bytes: its status and, when it carries one, its JSON body. */
export function firstResponse(text: string): { status: number; json: any } {
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)
  const headEnd = text.indexOf('\r\n\r\n')
  let json: unknown
  if (headEnd >= 0) {
    const head = text.slice(0, headEnd)
    const length = /\r\ncontent-length: (\d+)/i.exec(head)
    const body = text.slice(headEnd + 4, length ? headEnd + 4 + Number(length[1]) : undefined)
    try {
      json = body.length > 0 ? JSON.parse(body) : undefined
    } catch {
      json = undefined
    }
  }
  return { status: status ? Number(status[1]) : 0, json }
}

/**
 * POSTs a body of `bytes` zero-ish bytes announced by Content-Length, written in 1 MiB chunks as fast as
 * the socket takes them, until the broker answers or closes. Returns what it answered and how much was sent.
 */
export function floodBody(url: string, path: string, bytes: number): Promise<{ text: string; sentBytes: number }> {
  const target = new URL(url)
  const chunk = Buffer.alloc(1024 * 1024, 0x20)
  return new Promise((resolve) => {
    const socket = net.connect(Number(target.port), target.hostname)
    const parts: Buffer[] = []
    let sent = 0
    let done = false
    const finish = () => {
      if (done) return
      done = true
      socket.destroy()
      resolve({ text: Buffer.concat(parts).toString('utf8'), sentBytes: sent })
    }
    const pump = () => {
      while (!done && parts.length === 0 && sent < bytes) {
        sent += chunk.length
        if (!socket.write(chunk)) {
          socket.once('drain', pump)
          return
        }
      }
    }
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
      )
      pump()
    })
    socket.on('data', (part: Buffer) => {
      parts.push(part)
      // The answer is complete once its announced body arrived; stop there.
      const text = Buffer.concat(parts).toString('utf8')
      const headEnd = text.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: (\d+)/i.exec(text)
      if (headEnd >= 0 && length && Buffer.byteLength(text) >= headEnd + 4 + Number(length[1])) finish()
    })
    socket.on('end', finish)
    socket.on('close', finish)
    socket.on('error', finish)
    setTimeout(finish, 30_000).unref()
  })
}
