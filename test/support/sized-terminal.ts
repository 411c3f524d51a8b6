/**
 * A terminal of a given size for Ink, which ink-testing-library's fixed 100-column stream cannot be: the
 * frames written (Ink's debug mode writes each frame whole), a size that can change with a `resize`
 * event, and a stdin that accepts key presses.
 */
import { EventEmitter } from 'node:events'

/** Ink's stdout: frames in, a size out. */
export class SizedStdout extends EventEmitter {
  columns: number
  rows: number
  readonly frames: string[] = []
  readonly isTTY = true

  constructor(columns: number, rows: number) {
    super()
    this.columns = columns
    this.rows = rows
  }

  write = (frame: string): boolean => {
    this.frames.push(frame)
    return true
  }

  lastFrame = (): string | undefined => this.frames.at(-1)

  /** Changes the size and tells Ink, as a terminal does with SIGWINCH. */
  resize(columns: number, rows: number): void {
    this.columns = columns
    this.rows = rows
    this.emit('resize')
  }
}

/** Ink's stdin: key presses in. */
export class KeyStdin extends EventEmitter {
  readonly isTTY = true
  private data: string | null = null

  write(data: string): void {
    this.data = data
    this.emit('readable')
    this.emit('data', data)
  }

  read = (): string | null => {
    const data = this.data
    this.data = null
    return data
  }

  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
