/**
 * The spool part (docs/operations.md, "The disk spool"): the disk spool that takes pushes while PostgreSQL is
 * unreachable, opened first at boot (a second broker on the same directory stops here) and sealed last at shutdown.
 * Decorates `app.spool` (undefined for a broker without durability, e.g. most test brokers).
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { BrokerConfig } from '../config/broker-config.js'
import { spoolConfigLine } from '../config/effective-lines.js'
import { Spool } from '../spool/spool.js'
import { RECORD_OVERHEAD_BYTES } from '../spool/record-format.js'
import { SpoolLockedError } from '../spool/spool-directory.js'
import { BootError } from './boot-error.js'

declare module 'fastify' {
  interface FastifyInstance {
    spool: Spool | undefined
  }
}

/** Options of the spool part. */
export interface SpoolPartOptions {
  config: Pick<BrokerConfig, 'spool' | 'serverId' | 'maxBodyBytes'>
  log: Logger
  enabled: boolean
}

async function spoolPart(app: FastifyInstance, { config, log, enabled }: SpoolPartOptions): Promise<void> {
  if (!enabled) {
    app.decorate('spool', undefined)
    return
  }
  let spool: Spool
  try {
    spool = await Spool.open(
      {
        dir: config.spool.dir,
        serverId: config.serverId,
        eventsPerFile: config.spool.eventsPerFile,
        flushMs: config.spool.flushMs,
        maxBytes: config.spool.maxBytes,
        maxRecordBytes: config.maxBodyBytes + RECORD_OVERHEAD_BYTES,
      },
      log.child({ component: 'spool' }),
    )
  } catch (error) {
    throw new BootError((error as Error).message, error instanceof SpoolLockedError ? 1 : 2, { cause: error })
  }
  app.decorate('spool', spool)
  const fallbackDir = spool.fallbackDir
  if (fallbackDir !== undefined) log.warn(spoolConfigLine(config.spool, { dir: fallbackDir, fallback: true }))
  // Seal the active segment (fsync, rename, fsync the directory).
  app.addHook('onClose', async () => {
    await spool.close().catch((error: unknown) => log.error({ err: error }, 'spool seal failed'))
  })
}

export default fp(spoolPart, { name: 'queen-spool' })
