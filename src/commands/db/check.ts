import { Flags } from '@oclif/core'
import { checkDatabase, unmetRequirements, type DbCheckResult } from '../../cli/db-check.js'
import { pgUrlFlag } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'
import { resolvePgConnection } from '../../cli/pg-connection.js'

export default class DbCheck extends OutputCommand {
  static override summary = 'Check that a PostgreSQL can carry the broker'
  static override description =
    'Connects and checks the requirements of the broker: PostgreSQL 14 or newer; a direct or session-mode connection (a transaction-mode pooler breaks advisory locks and LISTEN); the privileges to create or use schema queen; synchronous_commit on; max_connections minus the reserved slots against --replicas x (--pool-size + 3); the installed schema version against this CLI. One line per finding (ok, warning, error). Reads only. Exit 1 when a requirement is not met, 2 when PostgreSQL cannot be reached. Connects with --pg-url, else PG_HOST and friends, else the running embedded PostgreSQL of QUEEN_DATA_DIR.'

  static override examples = [
    '<%= config.bin %> db check',
    '<%= config.bin %> db check --pg-url postgres://queen:secret@db:5432/queen --replicas 3 --pool-size 20',
    'PG_HOST=db PG_USER=queen PG_PASSWORD=secret <%= config.bin %> db check --output json',
  ]

  static override flags = {
    'pg-url': pgUrlFlag,
    replicas: Flags.integer({ description: 'broker replicas sharing the database', default: 3, min: 1 }),
    'pool-size': Flags.integer({
      description: 'DB_POOL_SIZE of each replica',
      env: 'DB_POOL_SIZE',
      default: 20,
      min: 1,
    }),
  }

  async run(): Promise<DbCheckResult> {
    const { flags } = await this.parse(DbCheck)
    const out = this.output(flags)
    const connection = await resolvePgConnection(flags['pg-url'], process.env)
    const result = await checkDatabase(connection, { replicas: flags.replicas, poolSize: flags['pool-size'] })
    if (out.tabular) {
      for (const finding of result.findings) out.write(`${finding.level}: ${finding.message}\n`)
    } else out.detail({}, result)
    if (!result.valid) {
      // JSON mode prints the result; the exit code carries the verdict.
      if (out.tabular) throw unmetRequirements(result)
      process.exitCode = 1
    }
    return result
  }
}
