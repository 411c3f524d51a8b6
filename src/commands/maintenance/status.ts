import { Flags } from '@oclif/core'
import { directFlag, pgUrlFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import {
  fetchMaintenance,
  fetchPopMaintenance,
  maintenanceDisplay,
  readMaintenanceDirect,
  type MaintenanceState,
} from '../../cli/maintenance.js'

export default class MaintenanceStatus extends HttpCommand {
  static override summary = 'Show the maintenance flags and the spool'
  static override description =
    'Prints push: on|off, pop: on|off, the records buffered in the spool, the spool health and the quarantined records, from GET /api/v1/system/maintenance of the broker. --pop shows only the pop flag; --direct reads the flags from PostgreSQL (no spool figures: each broker has its own spool).'

  static override aliases = ['maintenance:get']
  static override hiddenAliases = ['maint:status', 'maint:get']

  static override examples = [
    '<%= config.bin %> maintenance status',
    '<%= config.bin %> maintenance status --pop',
    '<%= config.bin %> maintenance status --server https://queen.example.com --output json',
    '<%= config.bin %> maintenance status --direct --pg-url postgres://queen:secret@db:5432/queen',
  ]

  static override flags = {
    pop: Flags.boolean({ description: 'show only the pop flag', default: false }),
    direct: directFlag,
    'pg-url': pgUrlFlag,
  }

  async run(): Promise<MaintenanceState> {
    const { flags } = await this.parse(MaintenanceStatus)
    const out = this.output(flags)
    let state: MaintenanceState
    if (flags.direct) {
      const flagsInDb = await readMaintenanceDirect(await this.pgConnection(flags))
      state = flags.pop ? { pop: flagsInDb.pop } : flagsInDb
    } else {
      const client = await this.httpClient(flags)
      state = flags.pop ? await fetchPopMaintenance(client) : await fetchMaintenance(client)
    }
    out.detail(maintenanceDisplay(state), state)
    return state
  }
}
