/**
 * Reading a password (docs/gateway.md, "People: users, sessions and sign-in"): never from a flag, where it would sit
 * in the shell history and the process list. On a terminal it is asked for without echo; otherwise it is the first
 * line of stdin (`printf %s "$PASSWORD" | ...`).
 */
import { UserError } from './errors.js'

type Input = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }

/** Asks on `prompt` and reads keys without echo until Enter (a terminal). */
function readHidden(stdin: Input, prompt: (text: string) => void, question: string): Promise<string> {
  prompt(question)
  return new Promise((resolve, reject) => {
    let text = ''
    stdin.setRawMode?.(true)
    stdin.resume()
    const done = (error?: Error) => {
      stdin.removeListener('data', onData)
      stdin.setRawMode?.(false)
      stdin.pause()
      prompt('\n')
      if (error) reject(error)
      else resolve(text)
    }
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n') return done()
        if (char === '\u0003') return done(new UserError('interrupted'))
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1)
        else text += char
      }
    }
    stdin.on('data', onData)
  })
}

async function firstLine(stdin: Input): Promise<string> {
  let text = ''
  for await (const chunk of stdin) {
    text += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk)
    if (text.includes('\n')) break
  }
  return text.split(/\r?\n/)[0]!
}

/** The password, from a hidden prompt or stdin; `what` names the command in the error for an empty one. */
export async function readPassword(
  stdin: Input,
  prompt: (text: string) => void,
  what: string,
  options: { confirm?: boolean } = {},
): Promise<string> {
  let password: string
  if (stdin.isTTY === true) {
    password = await readHidden(stdin, prompt, 'Password: ')
    if (options.confirm && (await readHidden(stdin, prompt, 'Password again: ')) !== password) {
      throw new UserError(`${what}: the two passwords differ`)
    }
  } else {
    password = await firstLine(stdin)
  }
  if (password === '') {
    throw new UserError(`${what}: no password on stdin`, {
      hint: `type it when asked on a terminal, or pipe it: printf %s "$PASSWORD" | queenctl ${what} ...`,
    })
  }
  return password
}
