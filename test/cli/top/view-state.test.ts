/** The key reducer of the dashboard (view-state.ts): each key's next state and effect. */
import { describe, expect, it } from 'vitest'
import {
  initialView,
  reduceKey,
  type KeyContext,
  type KeyPress,
  type KeyResult,
  type ViewState,
} from '../../../src/cli/top/view-state.js'

const QUEUES: KeyContext = {
  table: 'queues',
  rowCount: 3,
  columnCount: 8,
  pageSize: 10,
  selectedQueue: 'orders',
  maintenance: { push: false, pop: true },
}

function press(state: ViewState, keys: (string | KeyPress)[], context = QUEUES) {
  let result: KeyResult = { state }
  for (const key of keys) result = reduceKey(result.state, typeof key === 'string' ? { input: key } : key, context)
  return result
}

describe('the key reducer', () => {
  it('starts on the pane, filter and interval of the flags, never under 500ms', () => {
    const view = initialView({ pane: 'dlq', filter: 'ord', intervalMs: 100 })
    expect(view).toMatchObject({ pane: 'dlq', intervalMs: 500 })
    expect(view.filter).toMatchObject({ queues: 'ord', groups: 'ord', dlq: 'ord', partitions: '' })
  })

  it('moves within the rows and stops at both ends', () => {
    const view = { ...initialView(), pane: 'queues' as const }
    expect(press(view, ['j', { input: '', downArrow: true }, 'j', 'j']).state.selected.queues).toBe(2)
    expect(press(view, ['k', { input: '', upArrow: true }]).state.selected.queues).toBe(0)
  })

  it('asks before a maintenance change and only y makes it', () => {
    const view = initialView()
    const asked = press(view, ['m'])
    expect(asked.state.confirm).toEqual({ kind: 'push', enabled: true })
    expect(press(asked.state, ['y']).effect).toEqual({ type: 'maintenance', kind: 'push', enabled: true })
    const declined = press(asked.state, ['x'])
    expect(declined.effect).toBeUndefined()
    expect(declined.state.confirm).toBeNull()
    expect(press(view, ['M', 'Y']).effect).toEqual({ type: 'maintenance', kind: 'pop', enabled: false })
  })

  it('refuses a maintenance change before the flags were read', () => {
    const result = press(initialView(), ['m'], { ...QUEUES, maintenance: null })
    expect(result.state.confirm).toBeNull()
    expect(result.state.notice).toEqual({ text: 'the maintenance flags have not been read yet', error: true })
  })

  it('quits on q and Ctrl-C, even while a question or the filter is open', () => {
    expect(press(initialView(), ['q']).effect).toEqual({ type: 'quit' })
    const editing = press({ ...initialView(), pane: 'queues' }, ['/']).state
    expect(press(editing, [{ input: 'c', ctrl: true }]).effect).toEqual({ type: 'quit' })
    // q typed into the filter is text.
    expect(press(editing, ['q']).state.filter.queues).toBe('q')
  })

  it('steps the interval through its steps and stops at 500ms and 1m', () => {
    expect(press(initialView(), ['+']).effect).toEqual({ type: 'interval', intervalMs: 5000 })
    expect(press(initialView(), ['-', '-', '-', '-']).state.intervalMs).toBe(500)
    expect(press(initialView({ intervalMs: 60_000 }), ['+']).effect).toBeUndefined()
    // An interval between steps goes to the next one.
    expect(press(initialView({ intervalMs: 3000 }), ['+']).state.intervalMs).toBe(5000)
  })
})
