/**
 * UUIDv7 identifiers (message ids, generated transaction ids, lease ids): the `uuid` package lays out the
 * bytes, with random bytes drawn in blocks (one `getRandomValues` call per identifier cost more than the rest
 * of building a push item), and the text is written into one reused buffer and read out as one string (the
 * package's stringify builds it from 20 concatenations and a lower-casing copy: 0.9 KB of garbage per id, 7 %
 * of the broker's allocations in a push of 100). Identifiers are monotonic within this process, as the
 * package's own generator makes them: the same millisecond continues a counter that starts at a random value.
 */
import { randomFillSync } from 'node:crypto'
import { v7 } from 'uuid'

const IDS_PER_BLOCK = 256
const block = new Uint8Array(16 * IDS_PER_BLOCK)
let nextInBlock = IDS_PER_BLOCK
let lastMsecs = -Infinity
let sequence = 0

const random = new Uint8Array(16)
const bytes = new Uint8Array(16)
const text = Buffer.alloc(36)
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')

/** A new UUIDv7 string (lower case, 8-4-4-4-12). */
export function newUuidV7(): string {
  if (nextInBlock === IDS_PER_BLOCK) {
    randomFillSync(block)
    nextInBlock = 0
  }
  // The package reads bytes 6-9 (the counter's seed) and 10-15 (the tail) of its random input.
  const base = nextInBlock * 16
  for (let index = 6; index < 16; index++) random[index] = block[base + index]!
  nextInBlock += 1
  const now = Date.now()
  if (now > lastMsecs) {
    lastMsecs = now
    // 31 random bits, as the package seeds its own counter each millisecond.
    sequence = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!
  } else {
    sequence = (sequence + 1) | 0
    if (sequence === 0) lastMsecs += 1
  }
  v7({ msecs: lastMsecs, seq: sequence, random }, bytes, 0)
  let at = 0
  for (let index = 0; index < 16; index++) {
    if (at === 8 || at === 13 || at === 18 || at === 23) text[at++] = 0x2d // '-'
    const byte = bytes[index]!
    text[at++] = HEX_DIGITS[byte >> 4]!
    text[at++] = HEX_DIGITS[byte & 0x0f]!
  }
  return text.toString('latin1', 0, 36)
}
