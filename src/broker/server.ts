/**
 * `queenctl serve`'s broker (docs/operations.md, "Boot" and "Shutdown"): refuses settings it cannot honour, builds the
 * broker (broker.ts), listens, and drains on shutdown; and what `serve` does once its configuration is
 * resolved, shared by the oclif command (src/commands/serve.ts) and bin/run.js's flag-less start.
 */
import { readFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { BrokerConfig } from './config/broker-config.js'
import { effectiveConfigLines } from './config/effective-lines.js'
import { ConfigError } from '../platform/config/config-error.js'
import { resolveBrokerConfig, type ResolvedConfig } from './config/resolve.js'
import { parseServeFlags } from './config/serve-flags.js'
import { createLogger } from '../platform/log/logger.js'
import { BootError } from './parts/boot-error.js'
import { preloadPg } from './parts/pg-preload.js'
import type { BrokerServices } from './services.js'
import { meshWanted } from './mesh/mesh-wanted.js'
import { BROKER_VERSION } from './version.js'

export { BootError } from './parts/boot-error.js'

/** A running broker. */
export interface RunningBroker {
  app: FastifyInstance
  services: BrokerServices
  /** `http://host:port` the broker listens on. */
  url: string
  /** Drains and stops everything; resolves with the exit code (0 clean, 2 drain timeout). */
  shutdown(reason: string): Promise<number>
}

/**
 * Boots the broker and starts listening. The broker's modules are imported here, after pg is loaded without
 * its Cloudflare probe (parts/pg-preload.ts): this module imports nothing that imports pg.
 */
export async function startBroker(config: BrokerConfig, log: Logger): Promise<RunningBroker> {
  // Mesh settings that stop the boot stop it before the database starts; without a mesh its modules stay unloaded.
  if (meshWanted(config)) {
    const refused = (await import('./mesh/peers.js')).meshBootProblems(config)
    if (refused.length > 0) throw new BootError(refused.join('\n'), 1)
  }
  await preloadPg()
  const { buildBroker, closeBroker } = await import('./broker.js')
  const app = await buildBroker(config, { log })
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    await app.close()
    throw new BootError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`, 2, {
      cause: error,
    })
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  log.info({ http: `${config.host}:${port}`, dashboard: app.dashboard }, 'listening')

  let shuttingDown: Promise<number> | undefined
  const shutdown = (reason: string): Promise<number> => {
    shuttingDown ??= (async () => {
      log.info({ phase: 'draining', reason, parked_answered: app.broker.waiters.parked }, 'shutdown')
      const exitCode = (await closeBroker(app, config.shutdownTimeoutMs)) === 'closed' ? 0 : 2
      log.info({ phase: 'stopped', exit_code: exitCode }, 'shutdown')
      return exitCode
    })()
    return shuttingDown
  }

  return {
    app,
    services: app.broker,
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    shutdown,
  }
}

/**
 * `queenctl serve` from a resolved configuration: logs the effective configuration, its infos and warnings,
 * boots the broker (a {@link BootError} exits with its code; any other failure is thrown to the caller) and
 * drains on SIGTERM or SIGINT, exiting with the drain's code; a second signal cuts the open connections.
 */
export async function serveBroker({ config, warnings, infos }: ResolvedConfig): Promise<RunningBroker> {
  const log = createLogger({ level: config.log.level, json: config.log.json, serverId: config.serverId })
  // Signals are handled from the start: one that arrives while the broker boots (before or just after its
  // `listening` line) drains it once it is up instead of killing the process mid-boot; a second one exits.
  let running: RunningBroker | undefined
  let signalledDuringBoot: NodeJS.Signals | undefined
  let signals = 0
  const drain = (broker: RunningBroker, signal: NodeJS.Signals) => {
    void broker.shutdown(signal).then((code) => process.exit(code))
  }
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1
    if (running === undefined) {
      if (signals > 1) {
        log.warn({ signal }, 'second signal during boot: exiting now')
        process.exit(2)
      }
      signalledDuringBoot = signal
      log.info({ signal }, 'signal during boot: draining once the broker is up')
      return
    }
    if (signals > 1) {
      log.warn({ signal }, 'second signal: closing connections now')
      running.app.server.closeAllConnections()
      return
    }
    drain(running, signal)
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)

  for (const line of effectiveConfigLines(config, { version: BROKER_VERSION })) log.info(line)
  for (const info of infos) log.info(info)
  for (const warning of warnings) log.warn(warning)

  const fatal = (error: unknown) => {
    log.fatal({ err: error }, 'panic')
    process.exit(2)
  }
  process.on('uncaughtException', fatal)
  process.on('unhandledRejection', fatal)

  try {
    running = await startBroker(config, log)
  } catch (error) {
    if (error instanceof BootError) {
      log.fatal({ err: error }, error.message)
      process.exit(error.exitCode)
    }
    throw error
  }
  if (signalledDuringBoot !== undefined) drain(running, signalledDuringBoot)
  return running
}

/**
 * `queenctl serve [FLAGS]`, as bin/run.js starts it: configured by the environment and the serve flags, without
 * the CLI framework, whose modules and command manifest cost the broker about 10 MB of RSS it never uses
 * (issues 22 and 39). Resolves to undefined, having done nothing, for anything it does not take as given (an
 * unknown flag, `--help`, `--print-config`, a value the command would refuse, an unreadable `--env-file`, an
 * environment that is not a valid configuration): the caller then runs the oclif command, which reports it as it
 * always has.
 */
export async function serveFromArgv(argv: readonly string[]): Promise<RunningBroker | undefined> {
  const flags = parseServeFlags(argv)
  if (flags === undefined) return undefined
  let envFile: string | undefined
  if (flags.envFile !== undefined) {
    envFile = await readFile(flags.envFile, 'utf8').catch(() => undefined)
    if (envFile === undefined) return undefined
  }
  let resolved: ResolvedConfig
  try {
    resolved = resolveBrokerConfig({ env: process.env, envFile, flags })
  } catch (error) {
    if (error instanceof ConfigError) return undefined
    throw error
  }
  return serveBroker(resolved)
}
