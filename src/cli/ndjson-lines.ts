/**
 * NDJSON input of `push` and `ack --batch`: a file or stdin read chunk by chunk with backpressure (the
 * stream's async iterator asks for the next chunk only when the previous one was consumed), split into
 * numbered lines of at most `maxLineBytes`, so a multi-gigabyte input never sits in memory at once.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { EXIT, UserError } from './errors.js'

/** The longest line `push` accepts (docs/cli.md, "Data-plane commands"). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

/** Chunk size of file reads: large enough that a million short lines take a few hundred reads. */
const READ_CHUNK_BYTES = 1024 * 1024

/** One non-blank line of the input. */
export interface InputLine {
  /** 1-based line number in the input (blank lines count). */
  number: number
  /** The line without its `\n` (and a `\r` before it). */
  text: string
  /** Its length in bytes. */
  bytes: number
}

/** An opened input: the chunks and the name used in messages (`stdin` or the path). */
export interface NdjsonInput {
  name: string
  chunks: AsyncIterable<Buffer | string>
}

/**
 * Opens `-f FILE` (or stdin for `-` and no file). A file that does not exist or is not a regular file is a
 * user error naming it, raised before anything is sent.
 */
export async function openNdjsonInput(file: string | undefined, stdin: NodeJS.ReadableStream): Promise<NdjsonInput> {
  if (file === undefined || file === '-') return { name: 'stdin', chunks: stdin as AsyncIterable<Buffer | string> }
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? error.message})`
    throw new UserError(`file ${file} ${reason}`, {
      exitCode: EXIT.user,
      hint: 'pass an NDJSON file to -f, or - for stdin',
    })
  })
  if (info.isDirectory()) throw new UserError(`file ${file} is a directory`, { exitCode: EXIT.user })
  return { name: file, chunks: createReadStream(file, { highWaterMark: READ_CHUNK_BYTES }) }
}

/** A line that cannot be used (too long, malformed JSON, missing fields); `line` is its number. */
export class BadLineError extends Error {
  readonly line: number

  constructor(line: number, message: string) {
    super(message)
    this.name = 'BadLineError'
    this.line = line
  }
}

function tooLong(number: number, maxLineBytes: number): BadLineError {
  return new BadLineError(number, `is longer than ${maxLineBytes} bytes (at most 16 MiB per line)`)
}

/**
 * The non-blank lines of `input`, in order. Splitting on byte 0x0A is safe in UTF-8 (no multi-byte
 * sequence contains it). A line longer than `maxLineBytes` is a BadLineError.
 */
export async function* ndjsonLines(
  input: NdjsonInput,
  maxLineBytes: number = MAX_LINE_BYTES,
): AsyncGenerator<InputLine, void, undefined> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let number = 0
  const complete = (tail: Buffer): InputLine | undefined => {
    number += 1
    let line = pending.length === 0 ? tail : Buffer.concat([...pending, tail])
    pending = []
    pendingBytes = 0
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1)
    if (line.length > maxLineBytes) throw tooLong(number, maxLineBytes)
    const text = line.toString('utf8')
    return text.trim() === '' ? undefined : { number, text, bytes: line.length }
  }
  for await (const raw of input.chunks) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw
    let start = 0
    for (let newline = chunk.indexOf(0x0a, start); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const line = complete(chunk.subarray(start, newline))
      start = newline + 1
      if (line) yield line
    }
    if (start < chunk.length) {
      // A copy: the stream may reuse its buffer, and a slice would pin the whole 1 MiB chunk.
      const rest = Buffer.from(chunk.subarray(start))
      pending.push(rest)
      pendingBytes += rest.length
      if (pendingBytes > maxLineBytes + 1) throw tooLong(number + 1, maxLineBytes)
    }
  }
  if (pendingBytes > 0) {
    const line = complete(Buffer.alloc(0))
    if (line) yield line
  }
}
