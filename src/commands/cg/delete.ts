import { Args, Flags } from '@oclif/core'
import { confirmByName } from '../../cli/confirm.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import type { ConsumerGroupDeleteAnswer } from '../../wire/index.js'

export default class CgDelete extends HttpCommand {
  static override summary = "Delete a consumer group's positions (everywhere, or on one queue)"
  static override description =
    'DELETE /api/v1/consumer-groups/:group (or .../queues/:queue with --queue). The subscription metadata is kept unless --metadata (the Go queenctl default). The next pop of the group starts afresh by its subscription mode. Needs --yes when stdin is not a terminal (on one, type the group name).'

  static override aliases = ['cg:rm', 'consumer-group:delete', 'consumer-groups:delete']
  static override hiddenAliases = ['consumer-group:rm', 'consumer-groups:rm']

  static override examples = [
    '<%= config.bin %> cg delete billing --yes',
    '<%= config.bin %> cg delete billing --queue orders --no-metadata --yes',
  ]

  static override args = { group: Args.string({ description: 'consumer group', required: true }) }

  static override flags = {
    queue: Flags.string({ description: 'delete the group only on this queue' }),
    metadata: Flags.boolean({
      description: 'also delete the subscription metadata (kept by default, as in the Go queenctl)',
      allowNo: true,
      default: false,
    }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CgDelete)
    const out = this.output(flags)
    const where = flags.queue ? `group ${args.group} on queue ${flags.queue}` : `group ${args.group} on every queue`
    if (flags['dry-run']) {
      out.note(`would delete the positions of ${where}${flags.metadata ? ' and its subscription metadata' : ''}`)
      return { dryRun: true, group: args.group, queue: flags.queue ?? null, metadata: flags.metadata }
    }
    await confirmByName({
      yes: flags.yes,
      name: args.group,
      question: `Delete the positions of ${where}?`,
      action: `delete consumer ${where}`,
      retry: `queenctl cg delete ${args.group}${flags.queue ? ` --queue ${flags.queue}` : ''} --yes`,
    })
    const client = await this.httpClient(flags)
    const base = `/api/v1/consumer-groups/${encodeURIComponent(args.group)}`
    const path = flags.queue ? `${base}/queues/${encodeURIComponent(flags.queue)}` : base
    const answer = await client.delete<ConsumerGroupDeleteAnswer>(path, { query: { deleteMetadata: flags.metadata } })
    out.confirm(`deleted consumer ${where}: ${answer.deletedPartitions} partition position(s)`)
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
