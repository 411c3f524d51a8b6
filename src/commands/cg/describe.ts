import { Args } from '@oclif/core'
import { EXIT, UserError } from '../../cli/errors.js'
import { HttpCommand } from '../../cli/http-command.js'
import type { Column } from '../../cli/output.js'

import type { ConsumerGroupDetailAnswer, GroupPartition } from '../../wire/index.js'

type Row = GroupPartition & { queue: string }

const COLUMNS: Column<Row>[] = [
  { header: 'QUEUE', value: (row) => row.queue },
  { header: 'PARTITION', value: (row) => row.partition },
  { header: 'LAG', value: (row) => row.offsetLag },
  { header: 'LAG (S)', value: (row) => row.timeLagSeconds },
  { header: 'CONSUMED', value: (row) => row.totalConsumed },
  { header: 'LEASED', value: (row) => (row.leaseActive ? 'yes' : 'no') },
  { header: 'LAST CONSUMED', value: (row) => row.lastConsumedAt, wide: true },
]

export default class CgDescribe extends HttpCommand {
  static override summary = "Show a consumer group's position on every partition of every queue it reads"
  static override description =
    'GET /api/v1/consumer-groups/:group: per queue and partition the lag in messages and seconds, the messages consumed and whether a lease is held. -o json prints the broker answer (keyed by queue).'

  static override aliases = ['cg:get', 'cg:show', 'consumer-group:describe', 'consumer-groups:describe']
  static override hiddenAliases = ['consumer-group:get', 'consumer-groups:get']

  static override examples = ['<%= config.bin %> cg describe billing', '<%= config.bin %> cg get billing --output yaml']

  static override args = { group: Args.string({ description: 'consumer group', required: true }) }

  async run(): Promise<ConsumerGroupDetailAnswer> {
    const { args, flags } = await this.parse(CgDescribe)
    const out = this.output(flags)
    const detail = await (
      await this.httpClient(flags)
    ).get<ConsumerGroupDetailAnswer>(`/api/v1/consumer-groups/${encodeURIComponent(args.group)}`)
    const rows: Row[] = Object.entries(detail).flatMap(([queue, entry]) =>
      entry.partitions.map((partition) => ({ queue, ...partition })),
    )
    if (rows.length === 0) {
      throw new UserError(`consumer group ${JSON.stringify(args.group)} has no position on any queue`, {
        exitCode: EXIT.user,
        code: 'not_found',
        hint: 'queenctl cg list shows the groups',
      })
    }
    if (out.tabular) out.table(rows, COLUMNS)
    else out.detail({}, detail)
    return detail
  }
}
