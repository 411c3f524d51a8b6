import { BROKER_SCHEMA } from '../../broker/db/broker-schema.js'
import { renderSchemaScript } from '../../platform/postgres/schema-apply.js'
import { BaseCommand } from '../../cli/base-command.js'

export default class SchemaPrint extends BaseCommand {
  static override summary = 'Print the broker schema as one SQL script'
  static override description =
    'Prints every schema file in apply order with its ledger entry, for DBAs who apply the schema themselves (QUEEN_APPLY_SCHEMA=0 deployments). Reads no database.'

  static override examples = [
    '<%= config.bin %> schema print > queen-schema.sql',
    '<%= config.bin %> schema print | psql "$DATABASE_URL"',
  ]

  async run(): Promise<void> {
    await this.parse(SchemaPrint)
    process.stdout.write(renderSchemaScript(BROKER_SCHEMA))
  }
}
