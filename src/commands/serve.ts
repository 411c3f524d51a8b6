import { readFile } from 'node:fs/promises'
import { Flags } from '@oclif/core'
import { resolveBrokerConfig } from '../broker/config/resolve.js'
import { ConfigError } from '../platform/config/config-error.js'
import { effectiveConfigLines } from '../broker/config/effective-lines.js'
import { serveBroker } from '../broker/server.js'
import { SERVE_LOG_LEVELS, SERVE_MAX_PORT, SERVE_VALUE_FLAGS } from '../broker/config/serve-flags.js'
import { BROKER_VERSION } from '../broker/version.js'
import { BaseCommand } from '../cli/base-command.js'
import { UserError } from '../cli/errors.js'

export default class Serve extends BaseCommand {
  static override summary = 'Run the Queen broker'
  static override description =
    'Starts the broker: HTTP on PORT (6632), PostgreSQL from PG_HOST or, when PG_HOST is unset, an embedded PostgreSQL in QUEEN_DATA_DIR. Configuration comes from the environment (see queenctl env list); flags override it. SIGTERM or SIGINT drains and exits 0.'

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 7000 --log-level debug',
    'PG_HOST=db.internal PG_PASSWORD=secret <%= config.bin %> serve',
    '<%= config.bin %> serve --env-file /etc/queen.env --print-config',
  ]

  static override flags = {
    port: Flags.integer({ description: SERVE_VALUE_FLAGS.port, min: 0, max: SERVE_MAX_PORT }),
    host: Flags.string({ description: SERVE_VALUE_FLAGS.host }),
    'log-level': Flags.string({ description: SERVE_VALUE_FLAGS['log-level'], options: [...SERVE_LOG_LEVELS] }),
    'env-file': Flags.string({ description: SERVE_VALUE_FLAGS['env-file'] }),
    'data-dir': Flags.string({ description: SERVE_VALUE_FLAGS['data-dir'] }),
    'print-config': Flags.boolean({ description: 'print the effective configuration and exit', default: false }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve)
    let envFile: string | undefined
    if (flags['env-file']) {
      envFile = await readFile(flags['env-file'], 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UserError(`--env-file ${flags['env-file']}: ${error.code ?? error.message}`)
      })
    }
    let resolved
    try {
      resolved = resolveBrokerConfig({
        env: process.env,
        envFile,
        flags: { port: flags.port, host: flags.host, logLevel: flags['log-level'], dataDir: flags['data-dir'] },
      })
    } catch (error) {
      if (error instanceof ConfigError) {
        for (const warning of error.warnings) process.stderr.write(`${warning}\n`)
        for (const problem of error.problems) process.stderr.write(`${problem}\n`)
        throw new UserError(`${error.problems.length} invalid configuration variable(s); the broker did not start`, {
          code: 'config_error',
        })
      }
      throw error
    }
    if (flags['print-config']) {
      for (const line of effectiveConfigLines(resolved.config, { version: BROKER_VERSION })) this.log(line)
      for (const warning of resolved.warnings) process.stderr.write(`${warning}\n`)
      return
    }
    // bin/run.js starts the broker with serveFromArgv() and never loads this command, unless it must report something.
    await serveBroker(resolved)
  }
}
