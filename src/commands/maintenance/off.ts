import { Flags } from '@oclif/core'
import { EXIT } from '../../cli/errors.js'
import { directFlag, dryRunFlag, pgUrlFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import {
  changeConfirmation,
  DIRECT_NOTE,
  maintenanceDisplay,
  setMaintenance,
  setMaintenanceDirect,
  type MaintenanceChange,
} from '../../cli/maintenance.js'

export default class MaintenanceOff extends HttpCommand {
  static override summary = 'Turn push-maintenance (or, with --pop, pop-maintenance) off'
  static override description =
    'Turning push-maintenance off lets every replica replay its spool into PostgreSQL and send pushes there again; turning pop-maintenance off releases parked long-polls. Already off is success. Prints the resulting state and the buffered count. --direct writes the flag into PostgreSQL and notifies the brokers.'

  static override hiddenAliases = ['maint:off']

  static override examples = [
    '<%= config.bin %> maintenance off',
    '<%= config.bin %> maintenance off --pop',
    '<%= config.bin %> maintenance off --direct --pg-url postgres://queen:secret@db:5432/queen',
  ]

  static override flags = {
    pop: Flags.boolean({ description: 'turn pop-maintenance off instead', default: false }),
    'dry-run': dryRunFlag,
    direct: directFlag,
    'pg-url': pgUrlFlag,
  }

  async run(): Promise<MaintenanceChange> {
    const { flags } = await this.parse(MaintenanceOff)
    const out = this.output(flags)
    const kind = flags.pop ? 'pop' : 'push'
    const change = flags.direct
      ? await setMaintenanceDirect(await this.pgConnection(flags), kind, false, { dryRun: flags['dry-run'] })
      : await setMaintenance(await this.httpClient(flags), kind, false, { dryRun: flags['dry-run'] })
    if (change.dryRun && !change.changed) this.exit(EXIT.noop)
    out.confirm(changeConfirmation(change))
    if (flags.direct && !change.dryRun) out.note(DIRECT_NOTE)
    out.detail(maintenanceDisplay(change), change)
    return change
  }
}
