/**
 * A broker that goes away mid-session: `queenctl top` says so in the status bar, keeps the last data with
 * its age, keeps retrying, and is live again when the broker comes back. The broker sits behind a TCP proxy
 * the test cuts (refused connections, then bytes dropped without an answer) and restores.
 */
import { render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { HttpClient } from '../../src/cli/http-client.js'
import { httpSource } from '../../src/cli/top/top-source.js'
import { initialView } from '../../src/cli/top/view-state.js'
import { TopApp } from '../../src/ui/TopApp.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { configure, pushMany } from '../support/queen.js'
import { cellsOf, rowOf, waitForFrame } from '../support/top-screen.js'

let broker: TestBroker
let proxy: FaultProxy

beforeAll(async () => {
  broker = await startTestBroker({ label: 'ui_top_recovery' })
  const port = Number(new URL(broker.url).port)
  proxy = await startFaultProxy({ host: '127.0.0.1', port })
})
afterAll(async () => {
  await proxy.close()
  await broker.close()
})

it('shows an unreachable broker in the status bar, keeps the stale data, and recovers', async () => {
  await configure(broker, 'recover-orders')
  await pushMany(broker, 'recover-orders', 'p1', 4)
  const server = `http://127.0.0.1:${proxy.port}`
  const ui = render(
    <TopApp
      source={httpSource(new HttpClient({ server, timeoutMs: 2000 }))}
      initialView={initialView({ intervalMs: 500, pane: 'queues' })}
      color={false}
    />,
  )
  try {
    await waitForFrame(ui.lastFrame, (frame) => rowOf(frame, 'recover-orders') !== undefined, 'the queue')

    proxy.setMode('refuse')
    const down = await waitForFrame(
      ui.lastFrame,
      (frame) => frame.includes('✕ broker unreachable ('),
      'the unreachable broker',
    )
    expect(down).toContain('retrying every 500ms')
    expect(down).toMatch(/last answer \S+ ago/)
    // The last rows stay on screen, marked stale with their age.
    expect(cellsOf(rowOf(down, 'recover-orders'))[2]).toBe('4')
    await waitForFrame(ui.lastFrame, (frame) => /Queues \(1\) · .*stale: updated \S+ ago/.test(frame), 'stale')

    await pushMany(broker, 'recover-orders', 'p1', 3)
    proxy.setMode('pass')
    const back = await waitForFrame(
      ui.lastFrame,
      (frame) => frame.includes('● live') && cellsOf(rowOf(frame, 'recover-orders'))[2] === '7',
      'the broker back with the new count',
    )
    expect(back).not.toContain('unreachable')
    expect(back).not.toContain('stale')

    // A broker that accepts bytes and never answers: each request ends at the client's timeout (2 s here).
    proxy.setMode('blackhole')
    await waitForFrame(
      ui.lastFrame,
      (frame) => frame.includes('✕ broker unreachable (no answer within 2000 ms)'),
      'the silent broker',
    )
    proxy.setMode('pass')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('● live'), 'live again')
  } finally {
    ui.unmount()
  }
})
