/**
 * The CLI's HTTP client (docs/cli.md, "HTTP behaviour"): Node's fetch with the bearer token, the tenancy header and a
 * per-request timeout; retries (3 attempts, 1 s then 2 s) only for requests marked retryable (GET by
 * default) and only on network errors, timeouts and 5xx; answers mapped to the exit codes of docs/cli.md,
 * "Exit codes". Under --debug one trace line per attempt goes to stderr: method, URL, status, ms — never
 * headers, so never the token.
 */
import { BROKER_VERSION } from '../broker/version.js'
import { EXIT, UserError } from './errors.js'

/** Node's fetch accepts undici's `dispatcher` (a connection pool with its own TLS settings). */
type Dispatcher = NonNullable<RequestInit['dispatcher']>

/** Settings of a client. */
export interface HttpClientOptions {
  /** Base URL without `/api/v1`. */
  server: string
  token?: string
  tenant?: string
  /** Header carrying the tenant; default X-Queen-Tenant. */
  tenancyHeader?: string
  /** Per-request timeout, ms. */
  timeoutMs: number
  /** Skip TLS certificate verification (https only). */
  insecure?: boolean
  /** Receives one line per attempt (--debug). */
  trace?: (line: string) => void
  /** Waits between attempts of a retryable request; default 1 s then 2 s (three attempts). */
  retryDelaysMs?: readonly number[]
}

/** One request. */
export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>
  body?: unknown
  /** Retry on network errors and 5xx; default true for GET only (never for acks or other writes). */
  retry?: boolean
  /** Overrides the client's timeout (long polls add their wait). */
  timeoutMs?: number
  /**
   * Send the tenancy header (default true). Operator-only routes (`/api/v1/system/*`, `/internal/*`,
   * `/metrics`, the replica-level analytics) refuse a request carrying it with 403, so their callers pass false.
   */
  tenant?: boolean
  /**
   * Aborts the request (a `tail` stopped by Ctrl-C): the fetch rejects with the signal's reason, which is
   * rethrown unchanged and never retried.
   */
  signal?: AbortSignal
}

/** A failed request, with the HTTP status when the broker answered. */
export class HttpRequestError extends UserError {
  readonly status: number | undefined
  readonly body: unknown

  constructor(
    message: string,
    options: { exitCode: number; hint?: string; code?: string; status?: number; body?: unknown; cause?: unknown },
  ) {
    super(message, options)
    this.name = 'HttpRequestError'
    this.status = options.status
    this.body = options.body
  }
}

const DEFAULT_RETRY_DELAYS_MS = [1000, 2000] as const

/** Exit codes of broker error codes, for 200 answers carrying `error` (older brokers' admin routes). */
const CODE_EXITS: Record<string, number> = {
  QUEEN_ERR_VALIDATION: EXIT.user,
  QUEEN_ERR_INVALID_JSON: EXIT.user,
  QUEEN_ERR_UNSUPPORTED_MEDIA_TYPE: EXIT.user,
  QUEEN_ERR_BODY_TOO_LARGE: EXIT.user,
  QUEEN_ERR_NOT_FOUND: EXIT.user,
  QUEEN_ERR_ROUTE_NOT_FOUND: EXIT.user,
  QUEEN_ERR_QUEUE_NOT_FOUND: EXIT.user,
  QUEEN_ERR_MESSAGE_NOT_FOUND: EXIT.user,
  QUEEN_ERR_PARTITION_NOT_FOUND: EXIT.user,
  QUEEN_ERR_CONFLICT: EXIT.user,
  QUEEN_ERR_UNAUTHORIZED: EXIT.auth,
  QUEEN_ERR_FORBIDDEN: EXIT.auth,
}

/** The `error` text of a broker answer, if it carries one. */
function errorText(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const error = (body as Record<string, unknown>).error
  if (typeof error === 'string' && error !== '') return error
  if (error !== null && typeof error === 'object') {
    const message = (error as Record<string, unknown>).message
    return typeof message === 'string' ? message : JSON.stringify(error)
  }
  return undefined
}

function brokerCode(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined
  const code = (body as Record<string, unknown>).code
  return typeof code === 'string' ? code : undefined
}

/**
 * Maps a broker answer to an error (or undefined for a success): 400/404/409/413/415 and other 4xx → 1
 * with the broker's text unchanged; 401/403 → 3; 5xx → 2 with a hint naming the server; a 200 whose body
 * carries `error` → the matching error (by its code; a data-plane `success:false` or an unknown code → 2).
 */
export function answerError(
  status: number,
  body: unknown,
  context: { server: string; method: string; path: string; tokenSent: boolean },
): HttpRequestError | undefined {
  const text = errorText(body)
  const code = brokerCode(body)
  if (status >= 200 && status < 300) {
    if (text === undefined) return undefined
    const dataPlane = (body as Record<string, unknown>).success === false
    const exitCode = dataPlane ? EXIT.server : (CODE_EXITS[code ?? ''] ?? EXIT.server)
    return new HttpRequestError(text, {
      exitCode,
      status,
      body,
      code: code ?? undefined,
      hint:
        exitCode === EXIT.server
          ? `the broker at ${context.server} reported a failure for ${context.method} ${context.path}`
          : undefined,
    })
  }
  const message = text ?? (typeof body === 'string' && body.trim() !== '' ? body.trim() : `HTTP ${status}`)
  if (status === 401 || status === 403) {
    return new HttpRequestError(message, {
      exitCode: EXIT.auth,
      status,
      body,
      code: code ?? (status === 401 ? 'unauthorized' : 'forbidden'),
      hint: context.tokenSent
        ? status === 401
          ? 'the token was refused: check --token, QUEEN_TOKEN or the context token-ref'
          : 'the token lacks the role this command needs (admin routes need role admin)'
        : 'no token was sent: pass --token, set QUEEN_TOKEN, or use a context with a token-ref',
    })
  }
  if (status >= 500) {
    return new HttpRequestError(message, {
      exitCode: EXIT.server,
      status,
      body,
      code: code ?? 'server_error',
      hint: `the broker at ${context.server} answered ${status} to ${context.method} ${context.path}`,
    })
  }
  if (status >= 400) {
    return new HttpRequestError(message, { exitCode: EXIT.user, status, body, code: code ?? 'request_error' })
  }
  return new HttpRequestError(`unexpected HTTP ${status} from ${context.server}`, {
    exitCode: EXIT.server,
    status,
    body,
    code: 'server_error',
  })
}

let insecureAgent: Dispatcher | undefined

/**
 * A dispatcher that skips certificate verification. Node's fetch is undici, whose Agent class is reachable
 * through the global dispatcher (undici is not a dependency of ours); falling back to
 * NODE_TLS_REJECT_UNAUTHORIZED for this process when that is not available.
 */
async function insecureDispatcher(): Promise<Dispatcher | undefined> {
  if (insecureAgent) return insecureAgent
  const key = Symbol.for('undici.globalDispatcher.1')
  const globals = globalThis as unknown as Record<symbol, unknown>
  // The global dispatcher is created when fetch is first used; a data: URL needs no network.
  if (globals[key] === undefined) await fetch('data:,').catch(() => undefined)
  const global = globals[key] as { constructor?: { name?: string } } | undefined
  const AgentClass = global?.constructor as (new (options: unknown) => Dispatcher) | undefined
  if (AgentClass && AgentClass.name === 'Agent') {
    insecureAgent = new AgentClass({ connect: { rejectUnauthorized: false } })
    return insecureAgent
  }
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
  return undefined
}

function parseBody(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A client of one broker. */
export class HttpClient {
  readonly options: HttpClientOptions

  constructor(options: HttpClientOptions) {
    this.options = { ...options, server: options.server.replace(/\/+$/, '') }
  }

  /** The broker's base URL. */
  get server(): string {
    return this.options.server
  }

  /** GET, retried on network errors and 5xx. */
  get<T>(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.request<T>('GET', path, options)
  }

  /** POST with a JSON body, not retried unless asked. */
  post<T>(path: string, body: unknown, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.request<T>('POST', path, { ...options, body })
  }

  /** DELETE, never retried. */
  delete<T>(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.request<T>('DELETE', path, { ...options, retry: false })
  }

  /** Sends a request and returns the parsed JSON answer, or throws an HttpRequestError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.options.server}${path}`)
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value))
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `queenctl/${BROKER_VERSION}`,
    }
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
    if (this.options.tenant && options.tenant !== false)
      headers[(this.options.tenancyHeader ?? 'X-Queen-Tenant').toLowerCase()] = this.options.tenant
    const init: RequestInit = { method, headers }
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json'
      init.body = JSON.stringify(options.body)
    }
    if (this.options.insecure && url.protocol === 'https:') init.dispatcher = await insecureDispatcher()

    const retry = options.retry ?? method === 'GET'
    const delays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
    const attempts = retry ? delays.length + 1 : 1
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs
    const context = { server: this.options.server, method, path: url.pathname, tokenSent: Boolean(this.options.token) }
    let failure: HttpRequestError | undefined
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const started = Date.now()
      const retryNote = (): string =>
        attempt < attempts ? ` (retry ${attempt}/${attempts - 1} in ${delays[attempt - 1]} ms)` : ''
      try {
        const timeout = AbortSignal.timeout(timeoutMs)
        const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout
        const response = await fetch(url, { ...init, signal })
        const body = parseBody(await response.text())
        this.trace(`${method} ${url.href} ${response.status} ${Date.now() - started}ms`)
        failure = answerError(response.status, body, context)
        if (!failure) return body as T
        if (response.status < 500 || attempt === attempts) throw failure
        this.trace(`${method} ${url.href} will be retried${retryNote()}`)
      } catch (error) {
        if (error instanceof HttpRequestError) throw error
        if (options.signal?.aborted) throw error
        const timedOut = (error as Error).name === 'TimeoutError'
        const reason = timedOut ? `timeout after ${timeoutMs} ms` : networkReason(error)
        this.trace(`${method} ${url.href} ${reason} ${Date.now() - started}ms${retryNote()}`)
        failure = timedOut
          ? new HttpRequestError(`no answer from the broker at ${this.options.server} within ${timeoutMs} ms`, {
              exitCode: EXIT.server,
              code: 'timeout',
              cause: error,
              hint: `raise --timeout, or check the broker at ${this.options.server} (GET /health)`,
            })
          : new HttpRequestError(`cannot reach the broker at ${this.options.server}: ${reason}`, {
              exitCode: EXIT.server,
              code: 'unreachable',
              cause: error,
              hint: /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS|SSL/i.test(reason)
                ? `the TLS certificate of ${this.options.server} was not accepted; pass --insecure to skip verification`
                : `is a broker running at ${this.options.server}? Pass --server, set QUEEN_SERVER, or pick a --context`,
            })
        if (attempt === attempts) throw failure
      }
      await sleep(delays[attempt - 1] ?? 0)
    }
    throw failure ?? new HttpRequestError('request failed', { exitCode: EXIT.server })
  }

  private trace(line: string): void {
    this.options.trace?.(`http: ${line}`)
  }
}
