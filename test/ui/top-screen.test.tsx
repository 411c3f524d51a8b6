/**
 * The panes of `queenctl top` (src/ui/TopScreen.tsx) rendered with ink-testing-library from a real broker's answers:
 * the queues, pushes, pops and failed acks each test makes show up as rows, rates, lag and DLQ counts. The broker's
 * jobs are off in tests, so the tests run the per-minute metrics write and the stats refresh themselves, as the
 * broker's loops would.
 */
import { render } from 'ink-testing-library'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { HttpClient } from '../../src/cli/http-client.js'
import type { PaneKey } from '../../src/cli/top/routes.js'
import { httpSource, type TopSource } from '../../src/cli/top/top-source.js'
import { initialView } from '../../src/cli/top/view-state.js'
import { TopApp } from '../../src/ui/TopApp.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { ack, configure, pop, pushMany } from '../support/queen.js'
import { cellsOf, frameLines, rowOf, waitForFrame } from '../support/top-screen.js'

let broker: TestBroker
const mounted: { unmount(): void }[] = []

beforeAll(async () => {
  broker = await startTestBroker({ label: 'ui_top_screen' })
})
afterEach(() => {
  for (const ui of mounted.splice(0)) ui.unmount()
})
afterAll(async () => {
  await broker.close()
})

/** Runs the broker's per-minute metrics write and stats refresh once (its loops are off in tests). */
async function runBrokerJobs(): Promise<void> {
  await broker.services.observability.metricsJob.runOnce()
  await broker.services.observability.refreshStats()
}

function sourceOf(url: string, options: { tenant?: string } = {}): TopSource {
  return httpSource(new HttpClient({ server: url, timeoutMs: 5000, tenant: options.tenant }))
}

function startTop(options: { pane?: PaneKey; source?: TopSource; filter?: string } = {}) {
  const ui = render(
    <TopApp
      source={options.source ?? sourceOf(broker.url)}
      initialView={initialView({ intervalMs: 500, pane: options.pane, filter: options.filter })}
      color={false}
    />,
  )
  mounted.push(ui)
  return ui
}

/** `group` pops every message of `queue` and acks each failed (retryLimit 0: straight to the DLQ). */
async function deadLetter(queue: string, group: string, count: number): Promise<void> {
  await configure(broker, queue, { retryLimit: 0, deadLetterQueue: true })
  await pushMany(broker, queue, 'p1', count)
  const popped = await pop(broker, queue, { consumerGroup: group, batch: count })
  expect(popped.messages).toHaveLength(count)
  for (const message of popped.messages) {
    const result = await ack(broker, message, { status: 'failed', error: 'card declined' })
    expect(result.dlq).toBe(true)
  }
}

describe('the Overview and Queues panes', () => {
  it('show the queues the test made, their pending counts, the DLQ entries its failures made', async () => {
    await configure(broker, 'dash-orders')
    await pushMany(broker, 'dash-orders', 'p1', 5)
    await configure(broker, 'dash-audit')
    await pushMany(broker, 'dash-audit', 'p1', 2)
    await deadLetter('dash-billing', 'payments', 3)
    await runBrokerJobs()

    const ui = startTop({ filter: 'dash-' })
    const overview = await waitForFrame(
      ui.lastFrame,
      (frame) => frame.includes('Overview · updated') && /DLQ\s+3/.test(frame),
      'the Overview with the DLQ count',
    )
    expect(overview).toContain('[1 Overview]')
    expect(overview).toMatch(/push-maint\s+off/)
    expect(overview).toMatch(/spool records\s+0/)
    expect(overview).toContain('● live')

    ui.stdin.write('2')
    const queues = await waitForFrame(
      ui.lastFrame,
      (frame) => rowOf(frame, 'dash-billing') !== undefined && cellsOf(rowOf(frame, 'dash-billing'))[7] === '3',
      'the Queues pane with the DLQ column',
    )
    expect(queues).toContain('[2 Queues]')
    expect(queues).toContain('Queues (3) · sort QUEUE ▲')
    const [name, , pending, processing, , , , dlq] = cellsOf(rowOf(queues, 'dash-orders'))
    expect({ name, pending, processing, dlq }).toEqual({ name: 'dash-orders', pending: '5', processing: '0', dlq: '0' })
    expect(cellsOf(rowOf(queues, 'dash-audit'))[2]).toBe('2')
    // Rows come in name order by default: audit, billing, orders.
    const order = frameLines(queues)
      .filter((line) => line.slice(2).startsWith('dash-'))
      .map((line) => cellsOf(line)[0])
    expect(order).toEqual(['dash-audit', 'dash-billing', 'dash-orders'])
  })

  it('turns the pushes and pops the test makes into per-second rates and a sparkline', async () => {
    await configure(broker, 'rate-live')
    await configure(broker, 'rate-idle')
    await pushMany(broker, 'rate-idle', 'p1', 1)
    await runBrokerJobs()
    const ui = startTop({ pane: 'queues', filter: 'rate-' })
    // Two queue-ops answers make the first rates: zero, since nothing happened between them.
    await waitForFrame(ui.lastFrame, (frame) => cellsOf(rowOf(frame, 'rate-live'))[4] === '0.0', 'a zero rate')

    await pushMany(broker, 'rate-live', 'p1', 120)
    const popped = await pop(broker, 'rate-live', { batch: 40 })
    expect(popped.messages).toHaveLength(40)
    await broker.services.observability.metricsJob.runOnce()

    const moving = await waitForFrame(
      ui.lastFrame,
      (frame) => Number(cellsOf(rowOf(frame, 'rate-live'))[4]) > 0,
      'a push rate for rate-live',
    )
    const live = cellsOf(rowOf(moving, 'rate-live'))
    expect(Number(live[5])).toBeGreaterThan(0)
    // The idle queue's single push happened before top started: no rate.
    expect(cellsOf(rowOf(moving, 'rate-idle')).slice(4, 6)).toEqual(['0.0', '0.0'])

    ui.stdin.write('1')
    const overview = await waitForFrame(
      ui.lastFrame,
      (frame) => frame.includes('[1 Overview]') && /push\/s\s+\d/.test(frame),
      'the Overview rates',
    )
    const pushLine = frameLines(overview).find((line) => line.trim().startsWith('push/s'))!
    expect(Number(pushLine.trim().split(/\s+/)[1])).toBeGreaterThan(0)
    // This minute's 120 pushes (and more) make the tallest bar.
    expect(pushLine).toContain('█')
  })
})

describe('the Groups, DLQ, System and Mesh panes', () => {
  it('shows each consumer group with its lag', async () => {
    await configure(broker, 'grp-orders')
    await pushMany(broker, 'grp-orders', 'p1', 6)
    const popped = await pop(broker, 'grp-orders', { consumerGroup: 'shipping', batch: 2 })
    for (const message of popped.messages) await ack(broker, message)
    const ui = startTop({ pane: 'groups', filter: 'grp-' })
    const frame = await waitForFrame(ui.lastFrame, (text) => rowOf(text, 'shipping') !== undefined, 'the group')
    expect(frame).toContain('[3 Groups]')
    const [group, queue, lag, , state] = cellsOf(rowOf(frame, 'shipping'))
    expect({ group, queue, lag, state }).toEqual({ group: 'shipping', queue: 'grp-orders', lag: '4', state: 'Stable' })
  })

  it('counts the DLQ entries per queue and group, with the top errors', async () => {
    await deadLetter('dlqpane-cards', 'invoicing', 4)
    const ui = startTop({ pane: 'dlq', filter: 'dlqpane-' })
    const frame = await waitForFrame(ui.lastFrame, (text) => rowOf(text, 'dlqpane-cards') !== undefined, 'the DLQ row')
    expect(frame).toContain('[4 DLQ]')
    expect(cellsOf(rowOf(frame, 'dlqpane-cards')).slice(0, 3)).toEqual(['dlqpane-cards', 'invoicing', '4'])
    expect(frame).toMatch(/top errors \(\d+ entries\):/)
    expect(frame).toMatch(/\d+ {2}card declined/)
  })

  it('shows each replica and the PostgreSQL figures', async () => {
    await broker.services.observability.metricsJob.runOnce()
    const ui = startTop({ pane: 'system' })
    const frame = await waitForFrame(
      ui.lastFrame,
      (text) => rowOf(text, 'test-broker') !== undefined && text.includes('PostgreSQL: connections'),
      'the replica and PostgreSQL',
    )
    expect(frame).toContain('[5 System]')
    expect(frame).toContain('REPLICA')
    expect(rowOf(frame, 'test-broker')).toMatch(/MiB/)
    expect(frame).toMatch(/cache hit [\d.]+%/)
  })

  it('shows the mesh as this broker sees it', async () => {
    const ui = startTop({ pane: 'mesh' })
    const frame = await waitForFrame(ui.lastFrame, (text) => text.includes('self test-broker'), 'the mesh summary')
    expect(frame).toContain('[6 Mesh]')
    expect(frame).toContain('Mesh (0)')
    expect(frame).toContain('auth off (open mode)')
    expect(frame).toContain('peers 0/0 connected')
  })
})

describe('top on a broker with a tenancy header', () => {
  let tenancy: TestBroker
  beforeAll(async () => {
    tenancy = await startTestBroker({ label: 'ui_top_tenancy', config: { tenancy: { header: 'X-Queen-Tenant' } } })
  })
  afterAll(async () => {
    await tenancy.close()
  })

  it("shows the tenant's queues and reads the operator routes without the header", async () => {
    await http(tenancy, 'POST', '/api/v1/configure', { queue: 'acme-orders' }, { 'X-Queen-Tenant': 'acme' })
    await http(tenancy, 'POST', '/api/v1/configure', { queue: 'globex-orders' }, { 'X-Queen-Tenant': 'globex' })
    const ui = startTop({ pane: 'queues', source: sourceOf(tenancy.url, { tenant: 'acme' }) })
    const frame = await waitForFrame(ui.lastFrame, (text) => rowOf(text, 'acme-orders') !== undefined, 'the queue')
    expect(rowOf(frame, 'globex-orders')).toBeUndefined()
    ui.stdin.write('6')
    const mesh = await waitForFrame(ui.lastFrame, (text) => text.includes('self test-broker'), 'the mesh')
    expect(mesh).toContain('push-maint off')
  })

  it('a 403 on the mesh route shows "needs admin role" in that pane only', async () => {
    // Sending the tenancy header to an operator route is what the broker refuses with 403, as a gateway
    // refuses a token without the admin role.
    const base = sourceOf(tenancy.url, { tenant: 'acme' })
    const refusing: TopSource = {
      ...base,
      fetch: (request) => base.fetch(request.path === '/api/v1/system/mesh' ? { ...request, tenant: true } : request),
    }
    const ui = startTop({ pane: 'mesh', source: refusing })
    const frame = await waitForFrame(ui.lastFrame, (text) => text.includes('needs admin role'), 'the refusal')
    expect(frame).toContain('● live')
    expect(frame).not.toContain('unreachable')
    ui.stdin.write('2')
    await waitForFrame(ui.lastFrame, (text) => text.includes('Queues ('), 'the Queues pane still served')
  })
})
