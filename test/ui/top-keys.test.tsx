/**
 * The keys of `queenctl top` (docs/cli.md, "The top dashboard") on a real broker: pane switching, drill-in and back,
 * sort and reverse, the name filter, pause, the interval, help, and the maintenance toggles with their y/n question,
 * checked on the broker's own flags (GET /api/v1/system/maintenance).
 */
import { render } from 'ink-testing-library'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { HttpClient } from '../../src/cli/http-client.js'
import type { RouteRequest } from '../../src/cli/top/routes.js'
import { httpSource, type TopSource } from '../../src/cli/top/top-source.js'
import { initialView } from '../../src/cli/top/view-state.js'
import { TopApp } from '../../src/ui/TopApp.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { configure, pushMany, sleep } from '../support/queen.js'
import { cellsOf, frameLines, KEYS, rowOf, waitForFrame } from '../support/top-screen.js'

let broker: TestBroker
const mounted: { unmount(): void }[] = []

beforeAll(async () => {
  broker = await startTestBroker({ label: 'ui_top_keys' })
  // Pending: keys-a 1, keys-b 3, keys-c 2.
  for (const [queue, count] of [
    ['keys-a', 1],
    ['keys-b', 3],
    ['keys-c', 2],
  ] as const) {
    await configure(broker, queue)
    await pushMany(broker, queue, 'p1', count)
  }
})
afterEach(() => {
  for (const ui of mounted.splice(0)) ui.unmount()
})
afterAll(async () => {
  await broker.close()
})

/** A source on the test broker that counts its requests. */
function countingSource(): TopSource & { requests: RouteRequest[] } {
  const base = httpSource(new HttpClient({ server: broker.url, timeoutMs: 5000 }))
  const requests: RouteRequest[] = []
  return {
    ...base,
    requests,
    fetch: (request) => {
      requests.push(request)
      return base.fetch(request)
    },
  }
}

function startTop(options: { source?: TopSource; filter?: string } = {}) {
  const ui = render(
    <TopApp
      source={options.source ?? countingSource()}
      initialView={initialView({ intervalMs: 500, filter: options.filter ?? 'keys-' })}
      color={false}
    />,
  )
  mounted.push(ui)
  return ui
}

/** The queue names of a Queues frame, top to bottom. */
const queueOrder = (frame: string) =>
  frameLines(frame)
    .filter((line) => line.slice(2).startsWith('keys-'))
    .map((line) => cellsOf(line)[0])

/** The broker's maintenance flags. */
async function flags(): Promise<{ push: boolean; pop: boolean }> {
  const answer = await http(broker, 'GET', '/api/v1/system/maintenance')
  expect(answer.status).toBe(200)
  return { push: answer.body.maintenanceMode, pop: answer.body.popMaintenanceMode }
}

/** Waits until the broker's flags are `expected`. */
async function flagsBecome(expected: { push: boolean; pop: boolean }): Promise<void> {
  const deadline = Date.now() + 10_000
  while (JSON.stringify(await flags()) !== JSON.stringify(expected)) {
    if (Date.now() > deadline) throw new Error(`maintenance flags never became ${JSON.stringify(expected)}`)
    await sleep(25)
  }
}

describe('pane keys', () => {
  it('1-6, Tab and Shift-Tab switch panes', async () => {
    const ui = startTop()
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('[1 Overview]'), 'the Overview')
    ui.stdin.write('3')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('[3 Groups]'), 'Groups after 3')
    ui.stdin.write(KEYS.tab)
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('[4 DLQ]'), 'DLQ after Tab')
    ui.stdin.write(KEYS.shiftTab)
    ui.stdin.write(KEYS.shiftTab)
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('[2 Queues]'), 'Queues after two Shift-Tabs')
    ui.stdin.write(KEYS.shiftTab)
    ui.stdin.write(KEYS.shiftTab)
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('[6 Mesh]'), 'Mesh: Shift-Tab wraps around')
  })

  it('Enter opens the selected queue’s partitions and Esc goes back', async () => {
    const ui = startTop()
    ui.stdin.write('2')
    await waitForFrame(ui.lastFrame, (frame) => queueOrder(frame).length === 3, 'three queues')
    ui.stdin.write('j')
    ui.stdin.write(KEYS.down)
    ui.stdin.write('k')
    const selected = await waitForFrame(
      ui.lastFrame,
      (frame) => rowOf(frame, 'keys-b')?.startsWith('› ') === true,
      'keys-b selected',
    )
    expect(rowOf(selected, 'keys-a')?.startsWith('  ')).toBe(true)
    ui.stdin.write(KEYS.enter)
    const partitions = await waitForFrame(
      ui.lastFrame,
      (frame) => frame.includes('Queue keys-b') && rowOf(frame, 'p1') !== undefined,
      'the partitions of keys-b',
    )
    expect(partitions).toContain('PARTITION')
    expect(cellsOf(rowOf(partitions, 'p1'))[1]).toBe('3')
    ui.stdin.write(KEYS.escape)
    const back = await waitForFrame(ui.lastFrame, (frame) => frame.includes('Queues ('), 'the Queues table again')
    expect(queueOrder(back)).toEqual(['keys-a', 'keys-b', 'keys-c'])
  })

  it('s cycles the sort column and r reverses it', async () => {
    const ui = startTop()
    ui.stdin.write('2')
    const byName = await waitForFrame(ui.lastFrame, (frame) => queueOrder(frame).length === 3, 'three queues')
    expect(queueOrder(byName)).toEqual(['keys-a', 'keys-b', 'keys-c'])
    ui.stdin.write('s')
    ui.stdin.write('s')
    const byPending = await waitForFrame(ui.lastFrame, (frame) => frame.includes('sort PENDING ▲'), 'sort PENDING')
    expect(queueOrder(byPending)).toEqual(['keys-a', 'keys-c', 'keys-b'])
    ui.stdin.write('r')
    const reversed = await waitForFrame(ui.lastFrame, (frame) => frame.includes('sort PENDING ▼'), 'reversed')
    expect(queueOrder(reversed)).toEqual(['keys-b', 'keys-c', 'keys-a'])
  })

  it('/ filters by name; Esc clears the filter', async () => {
    const ui = startTop({ filter: '' })
    ui.stdin.write('2')
    await waitForFrame(ui.lastFrame, (frame) => queueOrder(frame).length === 3, 'three queues')
    ui.stdin.write('/')
    for (const char of 'keys-cx') ui.stdin.write(char)
    ui.stdin.write(KEYS.backspace)
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('filter: keys-c▏'), 'the filter being typed')
    ui.stdin.write(KEYS.enter)
    const filtered = await waitForFrame(ui.lastFrame, (frame) => frame.includes('filter "keys-c"'), 'filtered')
    expect(queueOrder(filtered)).toEqual(['keys-c'])
    expect(filtered).toContain('Queues (1 of 3)')
    ui.stdin.write(KEYS.escape)
    const cleared = await waitForFrame(ui.lastFrame, (frame) => queueOrder(frame).length === 3, 'the filter cleared')
    expect(cleared).not.toContain('filter "')
  })
})

describe('polling keys', () => {
  it('p pauses polling (no requests, data kept) and resumes it', async () => {
    const source = countingSource()
    const ui = startTop({ source })
    ui.stdin.write('2')
    await waitForFrame(ui.lastFrame, (frame) => queueOrder(frame).length === 3, 'three queues')
    ui.stdin.write('p')
    const paused = await waitForFrame(ui.lastFrame, (frame) => frame.includes('‖ paused'), 'paused')
    expect(paused).toContain('every 500ms · PAUSED')
    await sleep(300)
    const sent = source.requests.length
    await configure(broker, 'keys-d')
    // Four intervals without a request: the new queue does not appear.
    await sleep(2000)
    expect(source.requests.length).toBe(sent)
    expect(ui.lastFrame()).not.toContain('keys-d')
    ui.stdin.write('p')
    const resumed = await waitForFrame(ui.lastFrame, (frame) => rowOf(frame, 'keys-d') !== undefined, 'keys-d')
    expect(resumed).not.toContain('PAUSED')
    expect(resumed).toContain('● live')
  })

  it('+ and - change the interval, never below 500ms', async () => {
    const ui = startTop()
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('every 500ms'), 'the start interval')
    ui.stdin.write('+')
    ui.stdin.write('+')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('every 2s'), 'two steps up')
    ui.stdin.write('-')
    ui.stdin.write('-')
    ui.stdin.write('-')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('every 500ms'), 'back at the minimum')
  })

  it('? shows the keys and closes again', async () => {
    const ui = startTop()
    ui.stdin.write('?')
    const help = await waitForFrame(ui.lastFrame, (frame) => frame.includes('Keys'), 'the help')
    expect(help).toContain('toggle push-maintenance, pop-maintenance (asks y/n)')
    ui.stdin.write('?')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Overview ·'), 'the Overview again')
  })
})

describe('maintenance keys', () => {
  it('m and M ask y/n, change the broker flag on y and leave it on anything else', async () => {
    expect(await flags()).toEqual({ push: false, pop: false })
    const ui = startTop()
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('● live · push-maint off · pop-maint off'), 'the flags')

    ui.stdin.write('m')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Turn push-maintenance ON? (y/n)'), 'the question')
    ui.stdin.write('n')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('push-maintenance left unchanged'), 'the refusal')
    expect(await flags()).toEqual({ push: false, pop: false })

    ui.stdin.write('m')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Turn push-maintenance ON? (y/n)'), 'the question')
    ui.stdin.write('y')
    await flagsBecome({ push: true, pop: false })
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('push-maint on · pop-maint off'), 'push on')

    ui.stdin.write('M')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Turn pop-maintenance ON? (y/n)'), 'the question')
    ui.stdin.write('y')
    await flagsBecome({ push: true, pop: true })
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Pop maintenance is on'), "the broker's message")

    ui.stdin.write('m')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Turn push-maintenance OFF? (y/n)'), 'the question')
    ui.stdin.write('y')
    ui.stdin.write('M')
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('Turn pop-maintenance OFF? (y/n)'), 'the question')
    ui.stdin.write('y')
    await flagsBecome({ push: false, pop: false })
    await waitForFrame(ui.lastFrame, (frame) => frame.includes('push-maint off · pop-maint off'), 'both off')
  })
})
