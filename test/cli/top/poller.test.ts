/**
 * The polling loop (poller.ts) with a source whose answers the test releases: one request in flight per
 * route, a failed route tried again on the next tick, pause, and the routes following the screen.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TopPoller } from '../../../src/cli/top/poller.js'
import type { PaneKey, RouteKey, RouteRequest } from '../../../src/cli/top/routes.js'

interface Pending {
  request: RouteRequest
  resolve(value: unknown): void
  reject(error: unknown): void
}

function harness(pane: PaneKey = 'overview') {
  const pending: Pending[] = []
  const answers: RouteKey[] = []
  const failures: RouteKey[] = []
  const screen = { pane, drilledQueue: null as string | null }
  const poller = new TopPoller({
    fetch: (request) => new Promise((resolve, reject) => pending.push({ request, resolve, reject })),
    screen: () => screen,
    onAnswer: (key) => answers.push(key),
    onFailure: (key) => failures.push(key),
    intervalMs: 1000,
  })
  const paths = () => pending.map((entry) => entry.request.path)
  return { poller, pending, answers, failures, screen, paths }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('the polling loop', () => {
  it('requests the routes of the pane on screen, and the operator routes without the tenant', () => {
    const { poller, pending, paths } = harness('overview')
    poller.start()
    expect(paths()).toEqual([
      '/api/v1/status',
      '/api/v1/system/maintenance',
      '/api/v1/analytics/queue-ops',
      '/api/v1/consumer-groups',
      '/api/v1/analytics/system-metrics',
    ])
    expect(pending.find((entry) => entry.request.path === '/api/v1/system/maintenance')?.request.tenant).toBe(false)
    poller.stop()
  })

  it('keeps one request in flight per route: a slow route is skipped until it answers', async () => {
    const { poller, pending, answers, paths } = harness('overview')
    poller.start()
    const first = pending.length
    // Everything but the status route answers; the next tick requests all but status again.
    for (const entry of pending.splice(0).filter((entry) => entry.request.path !== '/api/v1/status')) {
      entry.resolve({})
    }
    await vi.advanceTimersByTimeAsync(1000)
    expect(answers.length).toBe(first - 1)
    expect(paths()).not.toContain('/api/v1/status')
    expect(paths()).toHaveLength(first - 1)
    poller.stop()
  })

  it('rereads a route after a change: the answer asked before it is dropped, one request stays in flight', async () => {
    const answered: unknown[] = []
    const pending: Pending[] = []
    const poller = new TopPoller({
      fetch: (request) => new Promise((resolve, reject) => pending.push({ request, resolve, reject })),
      screen: () => ({ pane: 'overview', drilledQueue: null }),
      onAnswer: (key, answer) => {
        if (key === 'maintenance') answered.push(answer)
      },
      onFailure: () => undefined,
      intervalMs: 1000,
    })
    const maintenance = () => pending.filter((entry) => entry.request.path === '/api/v1/system/maintenance')
    poller.start()
    expect(maintenance()).toHaveLength(1)
    poller.reread('maintenance')
    expect(maintenance()).toHaveLength(1)
    maintenance()[0]?.resolve({ maintenanceMode: false })
    await vi.advanceTimersByTimeAsync(0)
    expect(answered).toEqual([])
    expect(maintenance()).toHaveLength(2)
    maintenance()[1]?.resolve({ maintenanceMode: true })
    await vi.advanceTimersByTimeAsync(0)
    expect(answered).toEqual([{ maintenanceMode: true }])
    poller.stop()
  })

  it('reports a failure and tries the route again on the next tick', async () => {
    const { poller, pending, failures, paths } = harness('mesh')
    poller.start()
    for (const entry of pending.splice(0)) entry.reject(new Error('ECONNREFUSED'))
    await vi.advanceTimersByTimeAsync(0)
    expect(failures).toContain('mesh')
    await vi.advanceTimersByTimeAsync(1000)
    expect(paths()).toContain('/api/v1/system/mesh')
    poller.stop()
  })

  it('sends nothing while paused and polls at once on resume', async () => {
    const { poller, pending } = harness('mesh')
    poller.start()
    for (const entry of pending.splice(0)) entry.resolve({})
    poller.setPaused(true)
    await vi.advanceTimersByTimeAsync(5000)
    expect(pending).toHaveLength(0)
    poller.setPaused(false)
    expect(pending.length).toBeGreaterThan(0)
    poller.stop()
  })

  it('asks for the drilled queue’s partitions instead of the queue list', () => {
    const { poller, screen, paths } = harness('queues')
    screen.drilledQueue = 'orders eu'
    poller.start()
    expect(paths()).toContain('/api/v1/resources/queues/orders%20eu')
    expect(paths()).not.toContain('/api/v1/resources/queues')
    poller.stop()
  })
})
