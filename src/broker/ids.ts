/**
 * UUIDv7 identifiers (message ids, generated transaction ids, lease ids) from the `uuid` package, with
 * random bytes drawn in blocks: one `getRandomValues` call per identifier cost more than the rest of
 * building a push item. Identifiers are monotonic within this process, as the package's own generator
 * makes them: the same millisecond continues a counter that starts at a random value.
 */
import { randomFillSync } from 'node:crypto'
import { v7 } from 'uuid'

const IDS_PER_BLOCK = 256
const block = new Uint8Array(16 * IDS_PER_BLOCK)
let nextInBlock = IDS_PER_BLOCK
let lastMsecs = -Infinity
let sequence = 0

/** A new UUIDv7 string. */
export function newUuidV7(): string {
  if (nextInBlock === IDS_PER_BLOCK) {
    randomFillSync(block)
    nextInBlock = 0
  }
  const random = block.subarray(nextInBlock * 16, nextInBlock * 16 + 16)
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
  return v7({ msecs: lastMsecs, seq: sequence, random })
}
