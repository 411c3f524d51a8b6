/**
 * The readiness probe when its connection dies during a check (a failover, issue 38): the check answers
 * `unreachable`. Before, pg emitted 'error' on the checked-out client with nobody listening, and the
 * uncaught exception killed the broker (`panic: Connection terminated unexpectedly`).
 */
import { expect, it } from 'vitest'
import { HealthProbe } from '../../../src/platform/postgres/health-probe.js'
import { serverConnection } from '../../support/database.js'
import { startFaultProxy } from '../../support/fault-proxy.js'

it('answers unreachable, without an uncaught error, when the server goes away during a check', async () => {
  const server = serverConnection()
  const proxy = await startFaultProxy({ host: String(server.host), port: Number(server.port) })
  const probe = new HealthProbe({ ...server, host: '127.0.0.1', port: proxy.port, database: 'postgres' })
  try {
    expect(await probe.state()).toBe('writable')
    // The check's statement is in flight (its bytes vanish), then the connection is cut.
    proxy.setMode('blackhole')
    const pending = probe.state()
    await new Promise((resolve) => setTimeout(resolve, 200))
    proxy.setMode('refuse')
    expect(await pending).toBe('unreachable')
    proxy.setMode('pass')
    expect(await probe.state()).toBe('writable')
  } finally {
    await probe.close()
    await proxy.close()
  }
})
