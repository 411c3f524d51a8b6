import { Args, Flags } from '@oclif/core'
import { confirmAction } from '../../cli/confirm.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { parseSeekTarget } from '../../cli/times.js'
import type { PartitionSeekAnswer } from '../../wire/index.js'

export default class PartitionSeek extends HttpCommand {
  static override summary = "Move a consumer group's cursor on one partition to its head"
  static override description =
    'POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek: the group skips everything unconsumed on the partition and its lease there is released. The broker seeks one partition only to the head, so --to takes end (now, latest); for a time use cg seek, which moves every partition of the queue. Asks on a terminal unless --yes; without a terminal it goes ahead (as the Go queenctl does in scripts).'

  static override hiddenAliases = ['partitions:seek', 'p:seek']

  static override examples = ['<%= config.bin %> partition seek orders customer-42 --cg billing --to end --yes']

  static override args = {
    queue: Args.string({ description: 'queue name', required: true }),
    partition: Args.string({ description: 'partition name', required: true }),
  }

  static override flags = {
    cg: Flags.string({ description: 'consumer group to move', required: true }),
    to: Flags.string({ description: 'seek target: end (the only target of a one-partition seek)', default: 'end' }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<PartitionSeekAnswer | { dryRun: true }> {
    const { args, flags } = await this.parse(PartitionSeek)
    const out = this.output(flags)
    const target = parseSeekTarget(flags.to, { flag: '--to' })
    if (!('toEnd' in target)) {
      throw new UserError(`--to: a one-partition seek goes only to the head (end), not to ${target.timestamp}`, {
        exitCode: EXIT.user,
        hint: `queenctl cg seek ${flags.cg} ${args.queue} --to ${JSON.stringify(flags.to)} moves every partition of the queue to a time`,
      })
    }
    const what = `move group ${flags.cg} on partition ${args.partition} of queue ${args.queue} to the head`
    if (flags['dry-run']) {
      out.note(`would ${what}`)
      return { dryRun: true }
    }
    await confirmAction({
      yes: flags.yes,
      proceedOffTerminal: true,
      question: `Move group ${flags.cg} on partition ${args.partition} of queue ${args.queue} to the head (skip everything unconsumed)?`,
      action: what,
      retry: `queenctl partition seek ${args.queue} ${args.partition} --cg ${flags.cg} --to end --yes`,
    })
    const client = await this.httpClient(flags)
    const answer = await client.post<PartitionSeekAnswer>(
      `/api/v1/consumer-groups/${encodeURIComponent(flags.cg)}/queues/${encodeURIComponent(args.queue)}/partitions/${encodeURIComponent(args.partition)}/seek`,
      undefined,
    )
    out.confirm(`moved group ${flags.cg} on partition ${args.partition} of queue ${args.queue} to the head`)
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
