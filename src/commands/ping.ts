import { Flags } from '@oclif/core'
import { EXIT, UserError } from '../cli/errors.js'
import { HttpRequestError } from '../cli/http-client.js'
import { HttpCommand } from '../cli/http-command.js'

export default class Ping extends HttpCommand {
  static override summary = 'Is the broker ready? GET /health (readiness) or, with --live, /health/live'
  static override description =
    "Prints the status and the round-trip time. An answer that is not a Queen broker's health document (any other 200) is an error, exit 2. Exit 0 when ready (healthy) or alive; 2 when the broker answers not ready (starting, draining, database disconnected) or cannot be reached. Not retried: one request, one answer."

  static override examples = ['<%= config.bin %> ping', '<%= config.bin %> ping --live --output json']

  static override flags = {
    live: Flags.boolean({ description: 'liveness only (GET /health/live, no database round trip)', default: false }),
  }

  async run(): Promise<unknown> {
    const { flags } = await this.parse(Ping)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const path = flags.live ? '/health/live' : '/health'
    const started = performance.now()
    let body: Record<string, unknown>
    let ready = true
    try {
      body = await client.get<Record<string, unknown>>(path, { tenant: false, retry: false })
    } catch (error) {
      // A 503 carries the broker's own status (starting, draining, unhealthy): show it, then exit 2.
      if (!(error instanceof HttpRequestError) || error.status !== 503 || !error.body || typeof error.body !== 'object')
        throw error
      body = error.body as Record<string, unknown>
      ready = false
    }
    if (!isQueenHealth(body, flags.live)) {
      throw new UserError(`${client.server}${path} answered, but not as a Queen broker does`, {
        exitCode: EXIT.server,
        code: 'not_queen',
        hint: flags.live
          ? 'a Queen broker answers /health/live with {"status":"alive"}: check --server'
          : 'a Queen broker answers /health with {"status","version",...}: check --server',
      })
    }
    const latencyMs = Math.round((performance.now() - started) * 10) / 10
    const result = { server: client.server, status: body.status, latencyMs, health: body }
    out.detail(
      {
        server: client.server,
        status: body.status,
        ...(body.database !== undefined ? { database: body.database } : {}),
        ...(body.version !== undefined ? { version: body.version } : {}),
        latency: `${latencyMs} ms`,
      },
      result,
    )
    if (!ready) {
      if (out.format === 'json') this.logJson(result)
      out.warn(`the broker at ${client.server} is not ready: ${String(body.status)}`)
      this.exit(EXIT.server)
    }
    return result
  }
}

/** Whether a health answer is a Queen broker's: any 200 is not enough (a proxy or another service answers too). */
function isQueenHealth(body: unknown, live: boolean): body is Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false
  const answer = body as Record<string, unknown>
  if (typeof answer.status !== 'string') return false
  return live || typeof answer.version === 'string' || typeof answer.database === 'string'
}
