import { Args, Flags } from '@oclif/core'
import { runSeek, type SeekAnswer, type SeekDryRun } from '../../cli/consumer-groups.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { parseSeekTarget } from '../../cli/times.js'

export default class CgSeek extends HttpCommand {
  static override summary = "Move a consumer group's cursor on every partition of a queue"
  static override description =
    '--to end|now|latest skips everything unconsumed; --to beginning replays the whole queue; a time (15m, "2h ago", 2026-01-31, RFC 3339) moves the cursor to the last message created at or before it. The group\'s leases on the queue are released. Asks on a terminal unless --yes; without a terminal it goes ahead (as the Go queenctl does in scripts); --dry-run prints the request and sends nothing.'

  static override hiddenAliases = ['consumer-group:seek', 'consumer-groups:seek']

  static override examples = [
    '<%= config.bin %> cg seek billing orders --to end --yes',
    '<%= config.bin %> cg seek billing orders --to "2h ago"',
    '<%= config.bin %> cg seek billing orders --to beginning --dry-run',
  ]

  static override args = {
    group: Args.string({ description: 'consumer group', required: true }),
    queue: Args.string({ description: 'queue', required: true }),
  }

  static override flags = {
    to: Flags.string({
      description: 'seek target: end, beginning or a time (docs/cli.md, "Times and seek targets")',
      required: true,
    }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<SeekAnswer | SeekDryRun> {
    const { args, flags } = await this.parse(CgSeek)
    const out = this.output(flags)
    const target = parseSeekTarget(flags.to, { flag: '--to' })
    return runSeek(out, () => this.httpClient(flags), {
      ...args,
      target,
      yes: flags.yes,
      dryRun: flags['dry-run'],
      retry: `queenctl cg seek ${args.group} ${args.queue} --to ${JSON.stringify(flags.to)} --yes`,
    })
  }
}
