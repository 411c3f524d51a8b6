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
    'Prints push: on|off, pop: on|off, the records buffered in the spool, the spool health and the quarantined records, from GET /api/v1/system/maintenance of the broker; -o json also carries the Go queenctl keys maintenanceMode and popMaintenanceMode. --pop shows only the pop flag; --direct reads the flags from PostgreSQL (no spool figures: each broker has its own spool).'

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

  async run(): Promise<MaintenanceState & { maintenanceMode?: boolean; popMaintenanceMode: boolean }> {
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
    // The Go queenctl's keys (the broker's own names) next to ours, so `-o json` scripts of either read it.
    const data = {
      ...state,
      ...(state.push === undefined ? {} : { maintenanceMode: state.push }),
      popMaintenanceMode: state.pop,
    }
    out.detail(maintenanceDisplay(state), data)
    return data
  }
}
