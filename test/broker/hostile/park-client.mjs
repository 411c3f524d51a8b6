// The client side of parked-polls.test.ts, in a process of its own so that its 10 000 sockets do not
// share the broker's file-descriptor limit. Usage (forked with IPC): park-client.mjs <url> <count> <path>.
// Opens <count> connections in waves, sends one long-poll GET on each, reports {type:'sent'}, then
// records how every connection ended and reports {type:'done', outcomes, samples} once all are closed.
import net from 'node:net'
import { Buffer } from 'node:buffer'

const [url, countText, path] = process.argv.slice(2)
const target = new URL(url)
const count = Number(countText)
const WAVE = 500

/** How each connection ended: `status:<code>` for a complete answer, else what happened instead. */
const outcomes = new Map()
const samples = []
let closed = 0

function record(outcome, text) {
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
  if (samples.length < 3 && outcome !== 'status:200' && outcome !== 'status:503') {
    samples.push({ outcome, text: text.slice(0, 300) })
  }
  closed += 1
  if (closed === count) process.send({ type: 'done', outcomes: Object.fromEntries(outcomes), samples })
}

/** The status of a complete HTTP response in `text` (headers and the whole announced body), or undefined. */
function completeStatus(text) {
  const head = text.indexOf('\r\n\r\n')
  if (head < 0) return undefined
  const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, head))
  if (length && Buffer.byteLength(text.slice(head + 4)) < Number(length[1])) return undefined
  return /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]
}

function open() {
  return new Promise((resolve) => {
    const socket = net.connect(Number(target.port), target.hostname)
    let text = ''
    let error
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`)
      resolve()
    })
    socket.on('data', (part) => {
      text += part
    })
    socket.on('error', (failure) => {
      error = failure.code ?? String(failure)
      resolve()
    })
    socket.on('close', () => {
      const status = completeStatus(text)
      // A 200 must be the empty envelope: the queue never had a message.
      if (status === '200' && !text.includes('"messages":[]')) record('status:200 with messages', text)
      else if (status !== undefined) record(`status:${status}`, text)
      else record(error ? `error:${error}` : text.length > 0 ? 'incomplete answer' : 'closed without answer', text)
    })
  })
}

for (let opened = 0; opened < count; opened += WAVE) {
  await Promise.all(Array.from({ length: Math.min(WAVE, count - opened) }, open))
}
process.send({ type: 'sent', count })
