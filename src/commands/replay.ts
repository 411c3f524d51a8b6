import { Args, Flags } from '@oclif/core'
import { runSeek, type SeekAnswer, type SeekDryRun } from '../cli/consumer-groups.js'
import { dryRunFlag, yesFlag } from '../cli/flags.js'
import { HttpCommand } from '../cli/http-command.js'
import { parseSeekTarget } from '../cli/times.js'

export default class Replay extends HttpCommand {
  static override summary = 'Replay a queue for a consumer group from a time (a seek of the group)'
  static override description =
    'The same request as cg seek <group> <queue>: --to beginning replays everything, a time (15m, "2h ago", 2026-01-31, RFC 3339) replays what was created after it, --to end skips to the head. Asks on a terminal unless --yes; without a terminal it goes ahead (as the Go queenctl does in scripts); --dry-run sends nothing.'

  static override examples = [
    '<%= config.bin %> replay orders --cg billing --to "2h ago" --yes',
    '<%= config.bin %> replay orders --cg billing --to beginning --dry-run',
  ]

  static override args = { queue: Args.string({ description: 'queue', required: true }) }

  static override flags = {
    cg: Flags.string({ description: 'consumer group to move', required: true }),
    to: Flags.string({
      description: 'where to replay from: beginning, a time, or end (docs/cli.md, "Times and seek targets")',
      required: true,
    }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<SeekAnswer | SeekDryRun> {
    const { args, flags } = await this.parse(Replay)
    const out = this.output(flags)
    const target = parseSeekTarget(flags.to, { flag: '--to' })
    return runSeek(out, () => this.httpClient(flags), {
      group: flags.cg,
      queue: args.queue,
      target,
      yes: flags.yes,
      dryRun: flags['dry-run'],
      retry: `queenctl replay ${args.queue} --cg ${flags.cg} --to ${JSON.stringify(flags.to)} --yes`,
    })
  }
}
