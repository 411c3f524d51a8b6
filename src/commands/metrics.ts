import { Flags } from '@oclif/core'
import { HttpCommand } from '../cli/http-command.js'

export default class Metrics extends HttpCommand {
  static override summary = "The broker's metrics: GET /metrics as JSON, or the Prometheus text"
  static override description =
    'Prints GET /metrics (pretty JSON, or YAML with -o yaml); --prometheus prints GET /metrics/prometheus unchanged. Operator route: the tenancy header is never sent.'

  static override examples = ['<%= config.bin %> metrics', '<%= config.bin %> metrics --prometheus | grep queen_']

  static override flags = {
    prometheus: Flags.boolean({ description: 'print the Prometheus text exposition instead', default: false }),
  }

  async run(): Promise<unknown> {
    const { flags } = await this.parse(Metrics)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    if (flags.prometheus) {
      const text = await client.get<string>('/metrics/prometheus', { tenant: false })
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
      return undefined
    }
    const metrics = await client.get<unknown>('/metrics', { tenant: false })
    // Table mode has no columns to show: the JSON is the view.
    if (out.tabular) out.write(`${JSON.stringify(metrics, null, 2)}\n`)
    else out.detail({}, metrics)
    return metrics
  }
}
