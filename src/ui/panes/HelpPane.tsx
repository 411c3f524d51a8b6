/** `?`: the keys of the dashboard (docs/cli.md, "The top dashboard"). */
import { Box } from 'ink'
import { Line } from '../Line.js'

const KEYS: [keys: string, meaning: string][] = [
  ['1-6, Tab, Shift-Tab', 'switch pane: Overview, Queues, Groups, DLQ, System, Mesh'],
  ['↑/↓, j/k, PgUp/PgDn', 'move the selection'],
  ['Enter, Esc', 'open the selected queue’s partitions, go back'],
  ['/', 'filter by name (Enter keeps it, Esc clears it)'],
  ['s, r', 'next sort column, reverse the order'],
  ['p', 'pause or resume polling'],
  ['+, -', 'poll less or more often (500ms to 1m)'],
  ['m, M', 'toggle push-maintenance, pop-maintenance (asks y/n)'],
  ['?', 'this help (? or Esc closes it)'],
  ['q, Ctrl-C', 'quit'],
]

export function HelpPane() {
  return (
    <Box flexDirection="column">
      <Line text="Keys" tone="title" />
      <Line text="" />
      {KEYS.map(([keys, meaning]) => (
        <Line key={keys} text={`  ${keys.padEnd(22)}${meaning}`} />
      ))}
    </Box>
  )
}
