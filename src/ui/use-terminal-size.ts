/** The terminal's size, updated on resize (Ink re-lays out; this tells the panes how many rows fit). */
import { useStdout } from 'ink'
import { useEffect, useState } from 'react'

/** Columns and rows of the terminal. */
export interface TerminalSize {
  columns: number
  rows: number
}

/** What a stream without a size (a test stream, a pipe) is taken to have. */
const FALLBACK: TerminalSize = { columns: 80, rows: 24 }

function sizeOf(stream: NodeJS.WriteStream): TerminalSize {
  return { columns: stream.columns || FALLBACK.columns, rows: stream.rows || FALLBACK.rows }
}

/** The current size of Ink's stdout. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout()
  const [size, setSize] = useState(() => sizeOf(stdout))
  useEffect(() => {
    const resized = () => setSize(sizeOf(stdout))
    stdout.on('resize', resized)
    return () => {
      stdout.off('resize', resized)
    }
  }, [stdout])
  return size
}
