import { Flags } from '@oclif/core'
import { OutputCommand } from '../../cli/output-command.js'
import { gatewayAdmin } from '../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../cli/proxy-flags.js'
import { USAGE_COLUMNS, usageCsv, usageWindow } from '../../cli/proxy-usage.js'
import { readUsage, type UsageReport } from '../../gateway/store/usage.js'

export default class ProxyUsage extends OutputCommand {
  static override summary = "Export the gateway's metering: per tenant per hour"
  static override description =
    'Reads the hourly usage the gateways wrote (docs/gateway.md, "Metering"): requests, messages pushed, delivered and acked, and body bytes in and out, per tenant and UTC hour. --from and --to take the times of the other commands (24h, 2026-12-01, RFC 3339); an hour is included when it starts inside [from, to). -o csv prints a header line and one line per row, for spreadsheets and billing.'

  static override examples = [
    '<%= config.bin %> proxy usage',
    '<%= config.bin %> proxy usage --tenant acme --from 2026-12-01 --to 2027-01-01 -o csv > acme-december.csv',
    '<%= config.bin %> proxy usage --from 7d -o json',
  ]

  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'only this tenant (name or id)' }),
    from: Flags.string({ description: 'start, inclusive (default 24h ago)', default: '24h' }),
    to: Flags.string({ description: 'end, exclusive (default now)', default: 'now' }),
  }

  async run(): Promise<UsageReport[]> {
    const { flags } = await this.parse(ProxyUsage)
    const window = usageWindow(flags.from, flags.to)
    const rows = await gatewayAdmin(flags['pg-url'], (db) => readUsage(db, { tenant: flags.tenant, ...window }))
    if (flags.output === 'csv') {
      process.stdout.write(usageCsv(rows))
      return rows
    }
    const out = this.output(flags)
    out.list(rows, USAGE_COLUMNS)
    return rows
  }
}
