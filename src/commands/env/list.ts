import { Flags } from '@oclif/core'
import { ENV_COLUMNS, envRows, readEnvFile, type EnvRow } from '../../cli/env-report.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class EnvList extends OutputCommand {
  static override summary = 'List the broker variables set in this environment, with their source and default'
  static override description =
    'The broker\'s variable table (docs/configuration.md, "Variables") applied to this environment and --env-file: NAME, VALUE, SOURCE (env, env-file, default; the alias read when not the canonical name) and DEFAULT; -o wide adds TYPE and DESCRIPTION. Only variables that are set, unless --all. Secrets print as <set:N chars> unless --show-secrets. Values are not validated here: env check does that.'

  static override examples = [
    '<%= config.bin %> env list',
    '<%= config.bin %> env list --all --output wide',
    '<%= config.bin %> env list --env-file /etc/queen.env --show-secrets',
  ]

  static override flags = {
    all: Flags.boolean({ description: 'every variable, also the ones left at their default', default: false }),
    'show-secrets': Flags.boolean({ description: 'print secret values instead of <set:N chars>', default: false }),
    'env-file': Flags.string({
      description: 'KEY=VALUE file read as serve --env-file reads it (never overrides the environment)',
    }),
  }

  async run(): Promise<EnvRow[]> {
    const { flags } = await this.parse(EnvList)
    const out = this.output(flags)
    const rows = envRows({
      env: process.env,
      envFile: await readEnvFile(flags['env-file']),
      all: flags.all,
      showSecrets: flags['show-secrets'],
    })
    out.list(rows, ENV_COLUMNS)
    return rows
  }
}
