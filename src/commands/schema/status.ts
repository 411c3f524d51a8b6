import { pgUrlFlag } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'
import { resolvePgConnection } from '../../cli/pg-connection.js'
import { readSchemaStatus, schemaAdvice, type SchemaStatus } from '../../cli/schema-status.js'

export default class SchemaStatusCommand extends OutputCommand {
  static override summary = 'Compare the schema installed in PostgreSQL with this CLI'
  static override description =
    'Reads the schema ledger (no lock, no change): the installed version, the version of this CLI, and each shipped file as unchanged, changed or new. States: current, pending (run schema apply), not installed, ahead (the database is newer than this CLI). Connects with --pg-url, else PG_HOST and friends, else the running embedded PostgreSQL of QUEEN_DATA_DIR.'

  static override examples = [
    '<%= config.bin %> schema status',
    '<%= config.bin %> schema status --pg-url postgres://queen:secret@db:5432/queen --output json',
  ]

  static override flags = { 'pg-url': pgUrlFlag }

  async run(): Promise<SchemaStatus> {
    const { flags } = await this.parse(SchemaStatusCommand)
    const out = this.output(flags)
    const status = await readSchemaStatus(await resolvePgConnection(flags['pg-url'], process.env))
    const waiting = status.files.filter((file) => file.status !== 'unchanged')
    out.detail(
      {
        installed: status.installedVersion,
        cli: status.requiredVersion,
        state: status.state,
        ...(waiting.length > 0 ? { toApply: waiting.map((file) => `${file.name} (${file.status})`) } : {}),
        advice: schemaAdvice(status),
      },
      status,
    )
    return status
  }
}
