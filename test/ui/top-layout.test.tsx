/**
 * The dashboard fits the terminal it is given: at 80x24 every line is at most 80 characters and the frame
 * at most 23 lines (the last row is the cursor's), a long queue name ends in an ellipsis, and a resize
 * lays the screen out again for the new size.
 */
import { render } from 'ink'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { HttpClient } from '../../src/cli/http-client.js'
import { httpSource } from '../../src/cli/top/top-source.js'
import { initialView } from '../../src/cli/top/view-state.js'
import { TopApp } from '../../src/ui/TopApp.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { configure, pushMany } from '../support/queen.js'
import { KeyStdin, SizedStdout } from '../support/sized-terminal.js'
import { frameLines, waitForFrame } from '../support/top-screen.js'

let broker: TestBroker
const LONG_NAME = `layout-${'x'.repeat(60)}-end`

beforeAll(async () => {
  broker = await startTestBroker({ label: 'ui_top_layout' })
  await configure(broker, LONG_NAME)
  await pushMany(broker, LONG_NAME, 'p1', 2)
  for (let index = 0; index < 30; index++) await configure(broker, `layout-q${String(index).padStart(2, '0')}`)
})
afterAll(async () => {
  await broker.close()
})

/** The widest line and the number of lines of a frame. */
function extent(frame: string): { width: number; height: number } {
  const lines = frameLines(frame.replace(/\n$/, ''))
  return { width: Math.max(...lines.map((line) => [...line].length)), height: lines.length }
}

it('fits 80x24, cuts long names with an ellipsis, and follows a resize', async () => {
  const stdout = new SizedStdout(80, 24)
  const stdin = new KeyStdin()
  const instance = render(
    <TopApp
      source={httpSource(new HttpClient({ server: broker.url, timeoutMs: 5000 }))}
      initialView={initialView({ intervalMs: 500, pane: 'queues', filter: 'layout-' })}
      color={false}
    />,
    {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  )
  try {
    await waitForFrame(stdout.lastFrame, (frame) => frame.includes('Queues (31)'), 'the queues at 80x24')
    // The most pending first: the long name's queue.
    for (const key of 'ssr') stdin.write(key)
    const full = await waitForFrame(stdout.lastFrame, (frame) => frame.includes('sort PENDING ▼'), 'the sort')
    expect(extent(full).width).toBeLessThanOrEqual(80)
    expect(extent(full).height).toBeLessThanOrEqual(23)
    const longRow = frameLines(full).find((line) => line.includes('layout-xxx'))!
    expect(longRow).toMatch(/layout-x+… +2 /)
    expect(longRow).not.toContain('-end')
    // 31 queues do not fit: the window shows as many as the height allows.
    expect(frameLines(full).filter((line) => line.includes('layout-q')).length).toBeLessThan(30)

    stdout.resize(60, 16)
    const small = await waitForFrame(
      stdout.lastFrame,
      (frame) => extent(frame).width <= 60 && extent(frame).height <= 15 && frame.includes('Queues (31)'),
      'the queues at 60x16',
    )
    expect(small).toContain('QUEUE')
    expect(small).toContain('● live')

    stdout.resize(30, 8)
    await waitForFrame(stdout.lastFrame, (frame) => frame.includes('terminal too small (30x8)'), 'the size notice')
  } finally {
    instance.unmount()
  }
})
