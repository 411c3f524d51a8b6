/**
 * Commands that operate a broker over HTTP: the connection flags of docs/cli.md, "Global flags" on top of the output
 * flags, an HttpClient built from the resolved context (docs/cli.md, "Resolution order"), and, for the commands that
 * can also go to PostgreSQL directly, the connection of a P command.
 */
import type pg from 'pg'
import {
  loadContext,
  resolveConnection,
  resolveDatabaseRef,
  type Connection,
  type ConnectionFlags,
} from './contexts.js'
import { connectionFlags } from './flags.js'
import { HttpClient } from './http-client.js'
import { OutputCommand } from './output-command.js'
import { resolvePgConnection } from './pg-connection.js'

/** The parsed connection flags. */
export interface ConnectionFlagValues extends ConnectionFlags {
  timeout: number
  debug: boolean
}

export abstract class HttpCommand extends OutputCommand {
  static override baseFlags = { ...OutputCommand.baseFlags, ...connectionFlags }

  /** Resolves the context, server, token and tenant. */
  protected connection(flags: ConnectionFlagValues): Promise<Connection> {
    return resolveConnection(flags, process.env)
  }

  /** An HTTP client of the resolved broker; under --debug it traces every request on stderr. */
  protected async httpClient(flags: ConnectionFlagValues): Promise<HttpClient> {
    const resolved = await this.connection(flags)
    return new HttpClient({
      server: resolved.server,
      token: resolved.token,
      tenant: resolved.tenant,
      tenancyHeader: resolved.tenancyHeader,
      insecure: resolved.insecure,
      timeoutMs: flags.timeout,
      trace: flags.debug ? (line) => process.stderr.write(`${line}\n`) : undefined,
    })
  }

  /**
   * The PostgreSQL of a `--direct` run: `--pg-url`, else PG_*, else the context's `database` reference,
   * else the running embedded server (docs/cli.md, "Global flags"). The token is not resolved: P commands need none.
   */
  protected async pgConnection(flags: ConnectionFlagValues & { 'pg-url'?: string }): Promise<pg.ClientConfig> {
    if (flags['pg-url']) return resolvePgConnection(flags['pg-url'], process.env)
    const { context } = await loadContext(flags, process.env)
    const database = context ? await resolveDatabaseRef(context.database, context.name, process.env) : undefined
    return resolvePgConnection(undefined, process.env, database)
  }
}
