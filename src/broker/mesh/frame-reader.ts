/**
 * Splits a byte stream into frames (docs/operations.md, "Frames"). The declared length is checked against the cap
 * before anything is allocated for the body, so a 4 GiB prefix costs nothing but the close.
 */
import { MAX_FRAME_BYTES } from './protocol.js'

/** Outcome of feeding bytes: the complete frame bodies, or the oversize length that must close the connection. */
export type ReadResult = { frames: Buffer[] } | { oversized: number }

/** Incremental frame splitter of one connection. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0)

  /** True while part of a frame has arrived and the rest has not (the stall timer runs). */
  get midFrame(): boolean {
    return this.pending.length > 0
  }

  /** Adds received bytes; returns every frame they complete. */
  push(chunk: Buffer): ReadResult {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    const frames: Buffer[] = []
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0)
      if (length > MAX_FRAME_BYTES) {
        this.pending = Buffer.alloc(0)
        return { oversized: length }
      }
      if (this.pending.length < 4 + length) break
      // A copy, so a small frame does not pin the socket's whole chunk.
      frames.push(Buffer.from(this.pending.subarray(4, 4 + length)))
      this.pending = this.pending.subarray(4 + length)
    }
    if (this.pending.length === 0) this.pending = Buffer.alloc(0)
    return { frames }
  }
}
