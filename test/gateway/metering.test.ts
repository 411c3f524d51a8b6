/**
 * Metering (docs/gateway.md, "Metering"): what the gateway writes per tenant per hour equals a ledger of what the test
 * sent and received, byte for byte; the Prometheus endpoint says the same and is closed without its token;
 * `proxy usage` exports it as JSON and CSV.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { readUsage } from '../../src/gateway/store/usage.js'
import { parsePrometheusText } from '../support/prometheus-text.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { pgUrl, runCli } from '../support/cli-harness.js'
import { closeQueen, openQueen, runConsumer } from '../compat/client.js'

/** One request as a client sees it: what it sent and what came back, in bytes. */
interface LedgerEntry {
  status: number
  bytesIn: number
  bytesOut: number
  body: any
}

describe('metering', () => {
  let broker: TestBroker
  let gateway: TestGateway
  let key: string
  let tenantId: string
  const ledger: LedgerEntry[] = []
  const METRICS_TOKEN = 'metrics-token-for-the-test-0123456789'

  /** A request through the gateway, recorded in the ledger. */
  async function call(method: string, path: string, body?: unknown, auth = key): Promise<LedgerEntry> {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, ...(text ? { 'content-type': 'application/json' } : {}) },
      body: text,
    })
    const answer = Buffer.from(await response.arrayBuffer())
    const entry = {
      status: response.status,
      bytesIn: text ? Buffer.byteLength(text) : 0,
      bytesOut: answer.length,
      body: answer.length ? JSON.parse(answer.toString()) : undefined,
    }
    ledger.push(entry)
    return entry
  }

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_meter', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    gateway = await startTestGateway({
      upstreams: [broker.url],
      label: 'gw_meter',
      env: { PROXY_METERING_FLUSH_MS: '600000', PROXY_METRICS_TOKEN: METRICS_TOKEN },
    })
    tenantId = (await createTenant(gateway.db, 'acme')).id
    await createTenant(gateway.db, 'globex')
    key = (await createApiKey(gateway.db, { tenant: 'acme', role: 'read-write' })).key
  })
  afterAll(async () => {
    await gateway?.close()
    await broker?.close()
  })

  it('writes per tenant per hour exactly what a ledger of the requests counts', async () => {
    const items = (from: number, count: number) =>
      Array.from({ length: count }, (_, n) => ({
        queue: 'metered',
        transactionId: `tx-${from + n}`,
        payload: { n: from + n },
      }))
    await call('POST', '/api/v1/push', { items: items(0, 10) })
    await call('POST', '/api/v1/push', { items: items(10, 10) })
    // Two duplicates of earlier transaction ids and one new message: one pushed.
    await call('POST', '/api/v1/push', { items: [...items(0, 2), ...items(20, 1)] })
    // Pop and ack in rounds (a pop leases the partition until its messages are acked): batches of 8, acked
    // as a batch, the last one alone, then the same ack again (already acked: not counted twice).
    const ackOf = (message: any) => ({
      transactionId: message.transactionId,
      partitionId: message.partitionId,
      leaseId: message.leaseId,
    })
    const popped: any[] = []
    for (let round = 0; round < 3; round++) {
      const answer = await call('GET', '/api/v1/pop/queue/metered?wait=false&batch=8')
      const messages: any[] = answer.body?.messages ?? []
      popped.push(...messages)
      if (messages.length > 1) await call('POST', '/api/v1/ack/batch', { acknowledgments: messages.map(ackOf) })
      else for (const message of messages) await call('POST', '/api/v1/ack', ackOf(message))
    }
    expect(popped).toHaveLength(21)
    await call('POST', '/api/v1/ack', ackOf(popped[20]))
    // A request without a key counts for nobody.
    expect((await fetch(`${gateway.url}/api/v1/resources/queues`)).status).toBe(401)
    // A request the role refuses is a request of the tenant too; a read streams through the byte counter.
    await call('POST', '/api/v1/configure', { queue: 'metered', options: {} })
    await call('GET', '/api/v1/resources/queues')

    await gateway.app.gateway.meteringFlush.runOnce()
    const usage = await readUsage(gateway.db, {
      tenant: 'acme',
      from: new Date(Date.now() - 7_200_000),
      to: new Date(Date.now() + 60_000),
    })
    const sum = (pick: (row: (typeof usage)[number]) => number) => usage.reduce((total, row) => total + pick(row), 0)
    expect({
      requests: sum((row) => row.requests),
      pushed: sum((row) => row.messagesPushed),
      delivered: sum((row) => row.messagesDelivered),
      acked: sum((row) => row.messagesAcked),
      bytesIn: sum((row) => row.bytesIn),
      bytesOut: sum((row) => row.bytesOut),
    }).toEqual({
      requests: ledger.length,
      pushed: 21,
      delivered: 21,
      acked: 21,
      bytesIn: ledger.reduce((total, entry) => total + entry.bytesIn, 0),
      bytesOut: ledger.reduce((total, entry) => total + entry.bytesOut, 0),
    })
    expect(usage.every((row) => row.tenantId === tenantId && row.tenant === 'acme')).toBe(true)
    // The refused configure is in the ledger as a 403.
    expect(ledger.map((entry) => entry.status)).toContain(403)
  })

  it('counts what the real client pushes, receives and acks', async () => {
    const clientKey = (await createApiKey(gateway.db, { tenant: 'globex', role: 'read-write' })).key
    const queen = await openQueen(gateway, { bearerToken: clientKey })
    try {
      for (let batch = 0; batch < 5; batch++) {
        await queen.queue('client-metered').push(Array.from({ length: 7 }, (_, n) => ({ data: { batch, n } })))
      }
      let seen = 0
      const { reached, error } = await runConsumer(
        (signal) =>
          queen
            .queue('client-metered')
            .batch(10)
            .timeoutMillis(300)
            .consume(
              (messages: any[]) => {
                seen += messages.length
              },
              { signal },
            ),
        () => seen >= 35,
      )
      expect(error).toBeUndefined()
      expect(reached).toBe(true)
    } finally {
      await closeQueen(queen)
    }
    await gateway.app.gateway.meteringFlush.runOnce()
    const usage = await readUsage(gateway.db, {
      tenant: 'globex',
      from: new Date(Date.now() - 7_200_000),
      to: new Date(Date.now() + 60_000),
    })
    const total = (pick: (row: (typeof usage)[number]) => number) => usage.reduce((sum, row) => sum + pick(row), 0)
    expect(total((row) => row.messagesPushed)).toBe(35)
    expect(total((row) => row.messagesDelivered)).toBe(35)
    expect(total((row) => row.messagesAcked)).toBe(35)
  })

  it('serves the same counts on /proxy/metrics, to the holder of PROXY_METRICS_TOKEN only', async () => {
    expect((await fetch(`${gateway.url}/proxy/metrics`)).status).toBe(401)
    const wrong = await fetch(`${gateway.url}/proxy/metrics`, { headers: { authorization: `Bearer ${key}` } })
    expect(wrong.status).toBe(401)
    const response = await fetch(`${gateway.url}/proxy/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    })
    expect(response.status).toBe(200)
    const metrics = parsePrometheusText(await response.text())
    expect(metrics.value('queen_proxy_messages_total', { tenant: 'acme', kind: 'pushed' })).toBe(21)
    expect(metrics.value('queen_proxy_messages_total', { tenant: 'globex', kind: 'acked' })).toBe(35)
    expect(metrics.value('queen_proxy_upstream_healthy', { upstream: broker.url })).toBe(1)
    expect(metrics.value('queen_proxy_refusals_total', { reason: 'no_credentials' })).toBeGreaterThanOrEqual(1)
  })

  it('is off without a token', async () => {
    const closed = await startTestGateway({ upstreams: [broker.url], label: 'gw_meter_off' })
    try {
      const response = await fetch(`${closed.url}/proxy/metrics`)
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({ error: 'set PROXY_METRICS_TOKEN to enable /proxy/metrics' })
    } finally {
      await closed.close()
    }
  })

  it('exports the usage with proxy usage, as JSON and as CSV', async () => {
    const url = pgUrl(gateway.database)
    const json = await runCli(['proxy', 'usage', '--pg-url', url, '--tenant', 'acme', '--from', '2h', '-o', 'json'])
    expect(json.code, json.stderr).toBe(0)
    const rows = JSON.parse(json.stdout)
    expect(rows.reduce((sum: number, row: any) => sum + row.messagesPushed, 0)).toBe(21)
    expect(rows[0]).toMatchObject({ tenant: 'acme', tenantId })
    const csv = await runCli(['proxy', 'usage', '--pg-url', url, '--from', '2h', '-o', 'csv'])
    expect(csv.code, csv.stderr).toBe(0)
    const lines = csv.stdout.trim().split('\r\n')
    expect(lines[0]).toBe(
      'hour,tenant,tenantId,requests,messagesPushed,messagesDelivered,messagesAcked,bytesIn,bytesOut',
    )
    const tenants = lines.slice(1).map((line) => line.split(',')[1])
    expect(tenants.sort()).toEqual(['acme', 'globex'].sort())
    const bad = await runCli(['proxy', 'usage', '--pg-url', url, '--from', 'yesterday-ish'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--from')
  })
})
