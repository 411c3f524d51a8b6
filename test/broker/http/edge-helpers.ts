/**
 * Helpers of the HTTP edge tests: a fingerprint of the broker's database (to prove a refused request
 * stored nothing), and raw HTTP over node:http and node:net for requests `fetch` cannot send (no
 * Content-Type, empty bodies with a content type, chunked bodies, lying Content-Length).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import net from 'node:net'
import type pg from 'pg'

/** Row counts and state digests of the tables a request could change. */
export interface DbSnapshot {
  messages: number
  queues: number
  partitions: number
  consumers: number
  deadLetters: number
  messageStates: number
  subscriptions: number
  traces: number
  /** Cursor, lease and subscription start of every consumer row. */
  consumerState: string
  /** Mode and start of every subscription row. */
  subscriptionState: string
  /** Name and last update of every queue (configure touches `updated_at`). */
  queueState: string
}

/** Reads a {@link DbSnapshot} of the broker's database. */
export async function snapshot(db: pg.Pool): Promise<DbSnapshot> {
  const { rows } = await db.query<DbSnapshot>(`
    SELECT
      (SELECT count(*)::int FROM queen.messages) AS "messages",
      (SELECT count(*)::int FROM queen.queues) AS "queues",
      (SELECT count(*)::int FROM queen.partitions) AS "partitions",
      (SELECT count(*)::int FROM queen.consumers) AS "consumers",
      (SELECT count(*)::int FROM queen.dead_letters) AS "deadLetters",
      (SELECT count(*)::int FROM queen.message_states) AS "messageStates",
      (SELECT count(*)::int FROM queen.subscriptions) AS "subscriptions",
      (SELECT count(*)::int FROM queen.traces) AS "traces",
      (SELECT coalesce(string_agg(concat_ws('|', partition_id, consumer_group, cursor_position, lease_id,
         lease_expires_at, start_at, total_consumed), ';' ORDER BY partition_id, consumer_group), '')
       FROM queen.consumers) AS "consumerState",
      (SELECT coalesce(string_agg(concat_ws('|', queue_id, consumer_group, mode, start_at), ';'
         ORDER BY queue_id, consumer_group), '') FROM queen.subscriptions) AS "subscriptionState",
      (SELECT coalesce(string_agg(concat_ws('|', name, updated_at), ';' ORDER BY name), '')
       FROM queen.queues) AS "queueState"
  `)
  return rows[0]!
}

/** Number of stored messages of one queue. */
export async function messagesOfQueue(db: pg.Pool, queue: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM queen.messages m
       JOIN queen.partitions p ON p.id = m.partition_id
       JOIN queen.queues q ON q.id = p.queue_id
      WHERE q.name = $1`,
    [queue],
  )
  return rows[0]!.n
}

/** The answer of {@link rawRequest}. */
export interface RawResponse {
  status: number
  headers: IncomingHttpHeaders
  text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any
}

/**
 * One HTTP/1.1 request over node:http with exactly the given headers: nothing is added besides Host
 * (and `Transfer-Encoding: chunked` when `chunks` is given and no Content-Length is set).
 */
export function rawRequest(
  url: string,
  options: {
    method: string
    path: string
    headers?: Record<string, string>
    body?: string | Buffer
    chunks?: (string | Buffer)[]
  },
): Promise<RawResponse> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: Number(target.port),
        method: options.method,
        path: options.path,
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const parts: Buffer[] = []
        res.on('data', (part: Buffer) => parts.push(part))
        res.on('error', reject)
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8')
          let json: unknown
          try {
            json = text.length > 0 ? JSON.parse(text) : undefined
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
        })
      },
    )
    req.on('error', reject)
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk)
      req.end()
    } else if (options.body !== undefined) {
      req.end(options.body)
    } else {
      req.end()
    }
  })
}

/** What a raw socket received: the bytes, and whether and when the server closed the connection. */
export interface SocketExchange {
  text: string
  /** Milliseconds from connect to the first byte of the answer, or null when none came. */
  firstByteMs: number | null
  /** True when the server ended the connection before the deadline. */
  closedByServer: boolean
}

/**
 * Writes `payload` on a fresh TCP connection and collects the answer until the server closes the
 * connection or `deadlineMs` passes (then the client closes it).
 */
export function socketExchange(url: string, payload: string, deadlineMs: number): Promise<SocketExchange> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname)
    const parts: Buffer[] = []
    const started = performance.now()
    let firstByteMs: number | null = null
    let settled = false
    const finish = (closedByServer: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ text: Buffer.concat(parts).toString('utf8'), firstByteMs, closedByServer })
    }
    const timer = setTimeout(() => finish(false), deadlineMs)
    socket.on('connect', () => socket.write(payload))
    socket.on('data', (part: Buffer) => {
      firstByteMs ??= performance.now() - started
      parts.push(part)
    })
    socket.on('end', () => finish(true))
    socket.on('close', () => finish(true))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the answer is the server closing the connection too.
      if (parts.length > 0 && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        finish(true)
        return
      }
      if (!settled) {
        settled = true
        clearTimeout(timer)
        socket.destroy()
        reject(error)
      }
    })
  })
}
