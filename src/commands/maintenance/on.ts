import { Flags } from '@oclif/core'
import { confirmAction } from '../../cli/confirm.js'
import { EXIT } from '../../cli/errors.js'
import { directFlag, dryRunFlag, pgUrlFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import {
  changeConfirmation,
  DIRECT_NOTE,
  maintenanceDisplay,
  setMaintenance,
  setMaintenanceDirect,
  type MaintenanceChange,
} from '../../cli/maintenance.js'

export default class MaintenanceOn extends HttpCommand {
  static override summary = 'Turn push-maintenance (or, with --pop, pop-maintenance) on'
  static override description =
    'Push-maintenance sends every push to the spool (answered buffered) and holds replay, on every replica; pop-maintenance answers every pop 204. The flag is persisted in PostgreSQL, so set it while PostgreSQL is reachable. Needs --yes when stdin is not a terminal; already on is success. Prints the resulting state and the buffered count. --direct writes the flag into PostgreSQL and notifies the brokers, for when none is reachable.'

  static override hiddenAliases = ['maint:on']

  static override examples = [
    '<%= config.bin %> maintenance on --yes',
    '<%= config.bin %> maintenance on --pop --yes',
    '<%= config.bin %> maintenance on --dry-run',
    '<%= config.bin %> maintenance on --direct --pg-url postgres://queen:secret@db:5432/queen --yes',
  ]

  static override flags = {
    pop: Flags.boolean({ description: 'turn pop-maintenance on instead (pops answered 204)', default: false }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
    direct: directFlag,
    'pg-url': pgUrlFlag,
  }

  async run(): Promise<MaintenanceChange> {
    const { flags } = await this.parse(MaintenanceOn)
    const out = this.output(flags)
    const kind = flags.pop ? 'pop' : 'push'
    if (!flags['dry-run']) {
      await confirmAction({
        yes: flags.yes,
        question:
          kind === 'push'
            ? 'Turn push-maintenance on? Every replica will spool pushes until maintenance off.'
            : 'Turn pop-maintenance on? Every replica will answer pops 204 until maintenance off --pop.',
        action: `turn ${kind} maintenance on`,
        retry: `queenctl maintenance on${flags.pop ? ' --pop' : ''} --yes`,
      })
    }
    const change = flags.direct
      ? await setMaintenanceDirect(await this.pgConnection(flags), kind, true, { dryRun: flags['dry-run'] })
      : await setMaintenance(await this.httpClient(flags), kind, true, { dryRun: flags['dry-run'] })
    if (change.dryRun && !change.changed) this.exit(EXIT.noop)
    out.confirm(changeConfirmation(change))
    if (flags.direct && !change.dryRun) out.note(DIRECT_NOTE)
    out.detail(maintenanceDisplay(change), change)
    return change
  }
}
