/** The last line: the y/n question, the filter being typed, a notice, or the key hints. */
import { filterOf, type ViewState } from '../cli/top/view-state.js'
import { Line } from './Line.js'

const HINTS = '1-6 pane ⏎/Esc in/out / filter s/r sort p pause +/- poll m/M maint ? help q quit'

export function KeyBar({ view }: { view: ViewState }) {
  if (view.confirm) {
    const { kind, enabled } = view.confirm
    return <Line text={`Turn ${kind}-maintenance ${enabled ? 'ON' : 'OFF'}? (y/n)`} tone="warn" />
  }
  if (view.editingFilter) return <Line text={`filter: ${filterOf(view)}▏  (Enter keeps, Esc clears)`} tone="title" />
  if (view.notice) return <Line text={view.notice.text} tone={view.notice.error ? 'error' : 'ok'} />
  return <Line text={HINTS} tone="dim" />
}
