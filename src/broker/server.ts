/**
 * `queenctl serve`'s broker (operations.md sections 3 and 5): refuses settings it cannot honour, builds the
 * broker (broker.ts), listens, and drains on shutdown.
 */
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildBroker, closeBroker } from './broker.js'
import type { BrokerConfig } from './config/broker-config.js'
import { BootError } from './parts/boot-error.js'
import type { BrokerServices } from './services.js'
import { meshBootProblems } from './mesh/peers.js'

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

/** Boots the broker and starts listening. */
export async function startBroker(config: BrokerConfig, log: Logger): Promise<RunningBroker> {
  const refused = meshBootProblems(config)
  if (refused.length > 0) throw new BootError(refused.join('\n'), 1)
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
  log.info({ http: `${config.host}:${port}`, dashboard: 'off' }, 'listening')

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
