import { Flags } from '@oclif/core'
import { resolveBrokerConfig } from '../../broker/config/resolve.js'
import { confirmAction } from '../../cli/confirm.js'
import { describeTarget } from '../../cli/db-check.js'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, pgUrlFlag, yesFlag } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'
import { resolvePgConnection } from '../../cli/pg-connection.js'
import { partitionColumns } from '../../cli/spool-inspect-view.js'
import { checkReplayTarget, planReplay, replaySpool, type ReplayResult } from '../../cli/spool-replay.js'

export default class SpoolReplay extends OutputCommand {
  static override summary = "Replay a stopped broker's spool into PostgreSQL"
  static override description =
    "For a spool left behind by a broker that will not start again (a replaced pod's volume, a retired host). Runs the broker's own replay: the directory lock (a running broker's spool is refused: it replays its own), recovery of an unfinished segment, oldest segment first in batches of FILE_BUFFER_MAX_BATCH with the original transaction ids and acceptance times (a repeat stores nothing twice), poison records and damaged bytes quarantined to failed/, each segment deleted once all its records are settled. Refuses a database whose schema is not this CLI's, or with push-maintenance on. Needs --yes when stdin is not a terminal; --dry-run lists what would be replayed and changes nothing. Prints replayed=N quarantined=N damaged=N; exit 4 when there is nothing to replay, 2 when PostgreSQL went away mid-way (run it again). QUEEN_ENCRYPTION_KEY, QUEEN_MAX_BODY_BYTES and FILE_BUFFER_MAX_BATCH are read as the broker reads them."

  static override examples = [
    '<%= config.bin %> spool replay --dir /var/lib/queen/buffers --dry-run',
    '<%= config.bin %> spool replay --dir /mnt/queen-1-volume/buffers --pg-url postgres://queen:secret@db:5432/queen --yes',
    'PG_HOST=db PG_PASSWORD=secret <%= config.bin %> spool replay --dir ./buffers --yes --output json',
  ]

  static override flags = {
    dir: Flags.string({
      description: 'spool directory (default: FILE_BUFFER_DIR, else /var/lib/queen/buffers on Linux)',
      env: 'FILE_BUFFER_DIR',
    }),
    'pg-url': pgUrlFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<ReplayResult> {
    const { flags } = await this.parse(SpoolReplay)
    const out = this.output(flags)
    const { config } = resolveBrokerConfig({ env: process.env })
    const dir = flags.dir ?? config.spool.dir
    const plan = await planReplay(dir, config)
    const pending = plan.totals.pending
    const damaged = plan.totals.damaged + plan.totals.torn
    const empty: ReplayResult = { dir, replayed: 0, quarantined: 0, damaged: 0, remaining: pending, partitions: [] }
    if (pending === 0 && damaged === 0) return this.exit(EXIT.noop)
    const connection = await resolvePgConnection(flags['pg-url'], process.env)
    const target = describeTarget(connection)
    const what = `${pending} record(s) from ${plan.totals.segments} segment(s) of ${dir} into ${target}`
    if (flags['dry-run']) {
      out.note(`would replay ${what}${damaged > 0 ? `, and quarantine ${damaged} damaged range(s)` : ''}`)
      out.list(plan.partitions, partitionColumns(Date.now()))
      return { ...empty, partitions: plan.partitions }
    }
    await confirmAction({
      yes: flags.yes,
      question: `Replay ${what}?`,
      action: 'replay the spool',
      retry: `queenctl spool replay --dir "${dir}" --yes`,
    })
    await checkReplayTarget(connection)
    const result = await replaySpool({ dir, config, connection, plan, debug: this.debugEnabled() })
    if (out.tabular) {
      out.write(`replayed=${result.replayed} quarantined=${result.quarantined} damaged=${result.damaged}\n`)
    } else out.detail({}, result)
    return result
  }
}
