import { readFile } from 'node:fs/promises'
import { Flags } from '@oclif/core'
import { ConfigError } from '../../platform/config/config-error.js'
import { resolveGatewayConfig } from '../../gateway/config/resolve.js'
import { gatewayConfigLines, serveGateway } from '../../gateway/serve-gateway.js'
import { loadTlsFiles } from '../../gateway/tls/tls-files.js'
import { BaseCommand } from '../../cli/base-command.js'
import { UserError } from '../../cli/errors.js'

export default class ProxyServe extends BaseCommand {
  static override summary = 'Run the multi-tenant gateway in front of the brokers'
  static override description =
    "Starts the gateway (docs/gateway.md): HTTP on PROXY_PORT (6634), forwarding to the brokers of PROXY_UPSTREAMS with the tenant of each API key in PROXY_TENANCY_HEADER. Its own PostgreSQL comes from PROXY_PG_HOST or, when unset, an embedded server in PROXY_DATA_DIR (never the brokers'). SIGTERM or SIGINT drains and exits 0."

  static override examples = [
    '<%= config.bin %> proxy serve',
    '<%= config.bin %> proxy serve --upstreams http://queen-0:6632,http://queen-1:6632',
    'PROXY_PG_HOST=db PROXY_PG_PASSWORD=secret <%= config.bin %> proxy serve --port 8080',
    '<%= config.bin %> proxy serve --print-config',
  ]

  static override flags = {
    port: Flags.integer({ description: 'HTTP port (overrides PROXY_PORT)', min: 0, max: 65535 }),
    host: Flags.string({ description: 'bind address (overrides PROXY_HOST)' }),
    upstreams: Flags.string({ description: 'comma-separated broker URLs (overrides PROXY_UPSTREAMS)' }),
    'env-file': Flags.string({ description: 'KEY=VALUE file read before defaults; never overrides the environment' }),
    'print-config': Flags.boolean({ description: 'print the effective configuration and exit', default: false }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(ProxyServe)
    let envFile: string | undefined
    if (flags['env-file']) {
      envFile = await readFile(flags['env-file'], 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UserError(`--env-file ${flags['env-file']}: ${error.code ?? error.message}`)
      })
    }
    let resolved
    let tls
    try {
      resolved = resolveGatewayConfig({
        env: process.env,
        envFile,
        flags: { port: flags.port, host: flags.host, upstreams: flags.upstreams },
      })
      // Unreadable or mismatched TLS files are a configuration error naming the variable, before anything starts.
      if (resolved.config.tls && !flags['print-config']) tls = loadTlsFiles(resolved.config.tls)
    } catch (error) {
      if (error instanceof ConfigError) {
        for (const problem of error.problems) process.stderr.write(`${problem}\n`)
        throw new UserError(`${error.problems.length} invalid configuration variable(s); the gateway did not start`, {
          code: 'config_error',
        })
      }
      throw error
    }
    if (flags['print-config']) {
      for (const line of gatewayConfigLines(resolved.config)) this.log(line)
      for (const warning of resolved.warnings) process.stderr.write(`${warning}\n`)
      return
    }
    // The listener keeps the process alive; the gateway exits it once it has drained.
    await serveGateway(resolved.config, resolved.warnings, tls)
  }
}
