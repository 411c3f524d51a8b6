import { Flags } from '@oclif/core'
import { BROKER_VERSION } from '../broker/version.js'
import { HttpRequestError } from '../cli/http-client.js'
import { HttpCommand } from '../cli/http-command.js'

interface VersionReport {
  cli: string
  server?: string
  broker?: { version: unknown; status: unknown } | { unreachable: string }
}

export default class Version extends HttpCommand {
  static override summary = 'The CLI version, then the broker version and status'
  static override description =
    'Prints the CLI version, then GET /health of the broker: its version and status. --short prints only the CLI version and contacts nothing. A broker that cannot be reached still prints the CLI version, says so on stderr and exits 2 (the version was printed; the broker part failed).'

  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --short']

  static override flags = {
    short: Flags.boolean({ description: 'only the CLI version, no request', default: false }),
  }

  async run(): Promise<VersionReport> {
    const { flags } = await this.parse(Version)
    const out = this.output(flags)
    const cli = this.config.version ?? BROKER_VERSION
    if (flags.short) {
      if (out.format !== 'json') out.write(`${cli}\n`)
      return { cli }
    }
    const client = await this.httpClient(flags)
    let report: VersionReport
    try {
      const health = await client.get<Record<string, unknown>>('/health', { tenant: false, retry: false })
      report = { cli, server: client.server, broker: { version: health.version, status: health.status } }
    } catch (error) {
      if (!(error instanceof HttpRequestError)) throw error
      if (error.status === 503 && error.body && typeof error.body === 'object') {
        const body = error.body as Record<string, unknown>
        report = { cli, server: client.server, broker: { version: body.version, status: body.status } }
      } else {
        report = { cli, server: client.server, broker: { unreachable: error.message } }
      }
    }
    const broker = report.broker!
    out.detail(
      'unreachable' in broker
        ? { cli, server: client.server, broker: 'unreachable' }
        : { cli, server: client.server, broker: broker.version, status: broker.status },
      report,
    )
    if ('unreachable' in broker) {
      out.warn(broker.unreachable)
      if (out.format === 'json') this.logJson(report)
      this.exit(2)
    }
    return report
  }
}
