import { Flags } from '@oclif/core'
import { checkEnvironment, invalidEnvironment, readEnvFile, type EnvCheckResult } from '../../cli/env-report.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class EnvCheck extends OutputCommand {
  static override summary = "Run the broker's configuration validation without starting a broker"
  static override description =
    'Validates this environment plus --env-file exactly as serve does (strict booleans and numbers, the encryption key, mesh secret rules, JWT settings) and checks that the spool directory is writable. --pg also connects to PostgreSQL, reports its version and checks max_connections against --replicas x (DB_POOL_SIZE + 3). One line per finding (ok, warning, error); exit 1 when anything is invalid.'

  static override examples = [
    '<%= config.bin %> env check',
    '<%= config.bin %> env check --env-file /etc/queen.env --pg --replicas 3',
    '<%= config.bin %> env check --output json',
  ]

  static override flags = {
    'env-file': Flags.string({
      description: 'KEY=VALUE file read as serve --env-file reads it (never overrides the environment)',
    }),
    pg: Flags.boolean({ description: 'also connect to PostgreSQL and check max_connections', default: false }),
    replicas: Flags.integer({ description: 'broker replicas sharing the database (with --pg)', default: 3, min: 1 }),
  }

  async run(): Promise<EnvCheckResult> {
    const { flags } = await this.parse(EnvCheck)
    const out = this.output(flags)
    const result = await checkEnvironment({
      env: process.env,
      envFile: await readEnvFile(flags['env-file']),
      pg: flags.pg,
      replicas: flags.replicas,
    })
    if (out.tabular) {
      for (const finding of result.findings) out.write(`${finding.level}: ${finding.message}\n`)
    } else out.detail({}, result)
    if (!result.valid) {
      // JSON mode already printed the findings; the error then is only the exit code's reason.
      if (out.tabular) throw invalidEnvironment(result)
      process.exitCode = 1
    }
    return result
  }
}
