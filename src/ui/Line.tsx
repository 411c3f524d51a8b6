/**
 * One line of the dashboard: never wraps (cut with an ellipsis at the terminal's edge), styled by its
 * tone only when colour is on.
 */
import { Box, Text } from 'ink'
import { useTheme } from './theme.js'

/** How a line reads. */
export type Tone = 'normal' | 'title' | 'header' | 'dim' | 'ok' | 'warn' | 'error'

const COLORS: Record<Tone, string | undefined> = {
  normal: undefined,
  title: 'cyan',
  header: undefined,
  dim: 'gray',
  ok: 'green',
  warn: 'yellow',
  error: 'red',
}

export interface LineProps {
  text: string
  tone?: Tone
  /** Shown inverted (the selected row, the active tab). */
  selected?: boolean
}

export function Line({ text, tone = 'normal', selected = false }: LineProps) {
  const { color } = useTheme()
  // A Text of only spaces takes no height; an empty line is a box one row high.
  if (text.trim() === '') return <Box height={1} />
  if (!color) return <Text wrap="truncate-end">{text}</Text>
  return (
    <Text wrap="truncate-end" color={COLORS[tone]} bold={tone === 'header' || tone === 'title'} inverse={selected}>
      {text}
    </Text>
  )
}
