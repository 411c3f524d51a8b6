/**
 * The broker's fastify app and its HTTP part: body parsing, request ids, error rendering, the not-found
 * rule, and every route family. The other parts (src/broker/parts/) register before the HTTP part; the
 * routes read them through `app.broker` at request time.
 */
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import type { BrokerConfig } from './config/broker-config.js'
import { BrokerError, validationError } from './errors.js'
import { installBodyParsing } from './http/body-parsing.js'
import {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  REQUEST_TIMEOUT_MS,
  socketIdleTimeoutMs,
  TIMEOUT_CHECK_INTERVAL_MS,
} from '../platform/http/server-limits.js'
import { registerAckRoutes } from './http/routes/ack.js'
import { registerAnalyticsRoutes } from './http/routes/analytics.js'
import { registerPostgresStatsRoute } from './http/routes/analytics-postgres.js'
import { registerConsumerGroupSeekRoutes } from './http/routes/consumer-group-seek.js'
import { registerConsumerGroupRoutes } from './http/routes/consumer-groups.js'
import { registerDlqRoutes } from './http/routes/dlq.js'
import { registerHealthRoutes } from './http/routes/health.js'
import { registerLeaseRoutes } from './http/routes/lease.js'
import { registerMetricsRoutes } from './http/routes/metrics.js'
import { registerPartitionRoutes } from './http/routes/partitions.js'
import { registerMessageRoutes } from './http/routes/messages.js'
import { registerPopRoutes } from './http/routes/pop.js'
import { registerPushRoutes } from './http/routes/push.js'
import { registerQueueClearRoutes } from './http/routes/queue-clear.js'
import { registerQueueRoutes } from './http/routes/queues.js'
import { registerSystemRoutes } from './http/routes/system.js'
import { registerResourceOverviewRoutes } from './http/routes/resources-overview.js'
import { registerStreamRoutes } from './http/routes/streams.js'
import { registerStatsRefreshRoute } from './http/routes/stats-refresh.js'
import { registerStatusQueueRoutes } from './http/routes/status-queues.js'
import { registerStatusRoutes } from './http/routes/status.js'
import { registerStatusTopRoute } from './http/routes/status-top.js'
import { registerStreamQueriesRoute } from './http/routes/stream-queries.js'
import { registerTraceRoutes } from './http/routes/traces.js'
import { MAX_POP_TIMEOUT_MS } from './http/validation/pop-query.js'
import { registerTransactionRoutes } from './http/routes/transaction.js'
import { badlyEncodedParameter } from './http/validation/query.js'
import { BUILT_DASHBOARD_DIR, loadDashboardFiles } from './http/dashboard-files.js'
import { registerDashboardRoutes, sendDashboardFile } from './http/routes/dashboard.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Time a long-poll spent parked; excluded from request latency metrics. */
    parkedMs: number
  }
  interface FastifyInstance {
    /** The web dashboard: served, turned off (`QUEEN_DASHBOARD=false`), or on without a build to serve. */
    dashboard: DashboardState
  }
}

/** Whether the broker serves the web dashboard (the `listening` line's `dashboard` field). */
export type DashboardState = 'on' | 'off' | 'not built'

/** Options of the HTTP part. */
export interface HttpPartOptions {
  /** Serve the web dashboard (`QUEEN_DASHBOARD`). */
  dashboard: boolean
  /** The dashboard build to serve; default dist/dashboard of the package (tests point elsewhere). */
  dashboardDir?: string
}

const API_PREFIXES = ['/api/', '/streams/', '/internal/', '/health', '/metrics']

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>

/**
 * Fastify's own schema compilers (ajv, fast-json-stringify), loaded the first time a route with a schema
 * needs one instead of when the app is built: no broker route declares a schema, and ajv alone kept 1.3 MB
 * of the broker's heap live (issue 22). Resolved from fastify's folder, as fastify resolves them. Fastify
 * treats compilers given here as custom: a `headers` schema would reach ajv without fastify lower-casing its
 * keys first, so one added later must spell them in lower case.
 */
function compilersOnFirstUse(): CompilersFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))
  let validator: ValidatorFactory | undefined
  let serializer: SerializerFactory | undefined
  return {
    buildValidator: (schemas, options) =>
      (validator ??= (fromFastify('@fastify/ajv-compiler') as () => ValidatorFactory)())(schemas, options),
    buildSerializer: (schemas, options) =>
      (serializer ??= (fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory)())(
        schemas,
        options,
      ),
  }
}

/** The fastify instance of a broker (never listens by itself), logging through `log`. */
export function createBrokerApp(
  config: Pick<BrokerConfig, 'maxBodyBytes' | 'defaultTimeoutMs'>,
  log: FastifyBaseLogger,
): FastifyInstance {
  return Fastify({
    loggerInstance: log,
    bodyLimit: config.maxBodyBytes,
    // Why each value: src/platform/http/server-limits.ts.
    connectionTimeout: socketIdleTimeoutMs(Math.max(MAX_POP_TIMEOUT_MS, config.defaultTimeoutMs)),
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Per-request lines would be thousands per second; requests are summarised by the periodic rates block.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    // Names are up to 255 characters, each up to 12 bytes percent-encoded (a 4-byte UTF-8 character).
    routerOptions: { ignoreDuplicateSlashes: false, ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: routerError,
    schemaController: { compilersFactory: compilersOnFirstUse() },
    // A part's boot has its own bounds (the embedded server's start, the schema lock's 60 s); fastify's
    // default 10 s cut a first boot on a slow disk and a schema apply that builds an index on a big table.
    pluginTimeout: 0,
  })
}

const MAX_PARAM_LENGTH = 4096

/** A path the router cannot take apart, answered in the broker's error shape (docs/http-api.md, "Error shapes"). */
function routerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('X-Request-Id', request.id)
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send({
      error: `path: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
      code: 'QUEEN_ERR_VALIDATION',
    })
    return
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    void reply.code(400).send({ error: 'path: not valid percent-encoded UTF-8', code: 'QUEEN_ERR_VALIDATION' })
    return
  }
  request.log.error({ err: error }, 'router failed')
  void reply.code(500).send({ error: 'internal error', code: 'QUEEN_ERR_INTERNAL' })
}

async function httpPart(app: FastifyInstance, options: HttpPartOptions): Promise<void> {
  const services = app.broker
  installBodyParsing(app)
  // The web dashboard (docs/dashboard.md): its build is listed once, here; a missing build is logged, not fatal.
  const dashboard = options.dashboard ? loadDashboardFiles(options.dashboardDir ?? BUILT_DASHBOARD_DIR) : undefined
  app.decorate('dashboard', dashboard === undefined ? 'off' : dashboard.built ? 'on' : 'not built')
  if (dashboard !== undefined && !dashboard.built) {
    app.log.warn({ dir: dashboard.dir }, 'dashboard not built: / answers 404 (run npm run build)')
  }
  // JSON answers leave as bytes. A string body is measured (which copies a long one flat) and then joined
  // to the headers and copied again on its way to the socket (issue 22, the broker's allocation). Fastify
  // sends a Buffer as it is; its type only names strings.
  app.setReplySerializer((payload) => Buffer.from(JSON.stringify(payload)) as unknown as string)

  app.decorateRequest('parkedMs', 0)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id)
  })
  // JWT (docs/operations.md, "Authentication"): 401/403 before anything reads the request; sets request.identity.
  // Without JWT_ENABLED the hook is neither loaded nor run (issue 39, part 2: an off part loads none of its modules).
  if (app.auth.verifier !== undefined) app.addHook('onRequest', (await import('./auth/hook.js')).authenticate)
  // Query text that is not valid percent-encoding is a 400 naming the parameter (docs/http-api.md, "Query and path
  // parameters").
  app.addHook('onRequest', (request) => {
    const parameter = badlyEncodedParameter(request.url)
    if (parameter === undefined) return Promise.resolve()
    return Promise.reject(validationError(`${parameter}: not valid percent-encoded UTF-8`))
  })
  // Tenancy (docs/operations.md, "Tenancy"): tenant routes need the header, operator-only routes refuse it. A
  // single-tenant broker neither loads the gate nor runs it.
  if (services.config.tenancy.header !== undefined) {
    app.addHook('onRequest', (await import('./http/tenancy-gate.js')).tenancyGate)
  }
  // While draining, every answer closes its connection so the listener can finish (docs/operations.md, "Shutdown").
  app.addHook('onSend', async (_request, reply) => {
    if (services.state.phase === 'draining') void reply.header('Connection', 'close')
  })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    services.events.emit(
      'request',
      route,
      request.method,
      reply.statusCode,
      Math.max(0, reply.elapsedTime - request.parkedMs),
    )
  })

  app.setErrorHandler((error: FastifyError | BrokerError, request, reply) => {
    if (error instanceof BrokerError) {
      return reply.code(error.statusCode).send({ error: error.message, code: error.code })
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        void reply.header('Connection', 'close')
        return reply.code(413).send({
          error: `Request body is larger than ${services.config.maxBodyBytes} bytes`,
          code: 'QUEEN_ERR_BODY_TOO_LARGE',
        })
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.code(400).send({ error: 'Content-Length does not match the body', code: 'QUEEN_ERR_VALIDATION' })
      default:
        break
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: error.message, code: 'QUEEN_ERR_VALIDATION' })
    }
    request.log.error({ err: error }, 'request failed')
    return reply.code(500).send({ error: 'internal error', code: 'QUEEN_ERR_INTERNAL' })
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/'
    const message = `Route ${request.method} ${path} not found`
    if (request.method !== 'GET' || API_PREFIXES.some((prefix) => path.startsWith(prefix))) {
      return reply.code(404).send({ error: message, code: 'QUEEN_ERR_ROUTE_NOT_FOUND' })
    }
    // The SPA fallback: the dashboard's index.html, whose router reads the path (docs/http-api.md, "Unknown routes").
    if (dashboard !== undefined) return sendDashboardFile(dashboard, 'index.html', request, reply)
    return reply.code(404).send({ error: message, code: 'QUEEN_ERR_ROUTE_NOT_FOUND' })
  })

  registerHealthRoutes(app)
  registerPushRoutes(app)
  registerPopRoutes(app)
  registerAckRoutes(app)
  registerLeaseRoutes(app)
  registerTransactionRoutes(app)
  registerQueueRoutes(app)
  registerQueueClearRoutes(app)
  registerPartitionRoutes(app)
  registerMessageRoutes(app)
  registerResourceOverviewRoutes(app)
  registerDlqRoutes(app)
  registerConsumerGroupRoutes(app)
  registerConsumerGroupSeekRoutes(app)
  registerTraceRoutes(app)
  registerSystemRoutes(app)
  registerStreamRoutes(app)
  registerStatsRefreshRoute(app)
  registerStatusRoutes(app)
  registerStatusQueueRoutes(app)
  registerStatusTopRoute(app)
  registerStreamQueriesRoute(app)
  registerAnalyticsRoutes(app)
  registerPostgresStatsRoute(app)
  registerMetricsRoutes(app)
  if (dashboard !== undefined) registerDashboardRoutes(app, dashboard)
}

/** The HTTP part: registered last, after the parts whose state the routes read. */
export default fp(httpPart, { name: 'queen-http', dependencies: ['queen-auth', 'queen-engines'] })
