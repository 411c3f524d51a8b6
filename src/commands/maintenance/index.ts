import MaintenanceStatus from './status.js'

export default class Maintenance extends MaintenanceStatus {
  static override summary = 'Show the maintenance flags and the spool (same as maintenance status)'
  static override aliases: string[] = []
  static override hiddenAliases = ['maint']

  static override examples = [
    '<%= config.bin %> maintenance',
    '<%= config.bin %> maintenance --pop --output yaml',
    '<%= config.bin %> maintenance on --yes',
    '<%= config.bin %> maintenance off',
  ]
}
