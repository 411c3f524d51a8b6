/**
 * The mesh wire protocol (docs/operations.md, "Frames", "Handshake" and "Frame authentication"): length-prefixed
 * frames, the HELLO challenge-response and the per-direction keys that authenticate every later frame with a MAC over
 * its sequence number. Pure functions over buffers; the sockets live in mesh-socket.ts.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** Largest frame body (after the length prefix), bytes. */
export const MAX_FRAME_BYTES = 64 * 1024
/** Protocol version in HELLO. */
export const PROTOCOL_VERSION = 1
/** MAC and sequence number ahead of the JSON of every authenticated frame. */
export const MAC_BYTES = 32
export const SEQ_BYTES = 8
const LABEL = 'queen-mesh-v1'

/** Who speaks: the side that dialed or the side that accepted. */
export type Role = 'dialer' | 'acceptor'
/** A direction of a connection: dialer to acceptor, or back. */
export type Direction = 'd2a' | 'a2d'

/** The identity each side states in HELLO. */
export interface HelloIdentity {
  serverId: string
  instance: string
  /** 32 random bytes, base64. */
  nonce: string
}

/** The first frame of the dialer. */
export interface HelloOffer extends HelloIdentity {
  type: 'HELLO'
  phase: 'offer'
  v: number
}

/** The acceptor's answer, proving it knows the secret. */
export interface HelloChallenge extends HelloIdentity {
  type: 'HELLO'
  phase: 'challenge'
  v: number
  proof: string
}

/** The dialer's proof. */
export interface HelloProof {
  type: 'HELLO'
  phase: 'proof'
  proof: string
}

/** A fresh handshake nonce. */
export function newNonce(): string {
  return randomBytes(32).toString('base64')
}

/**
 * Both nonces, server ids and instance ids in dialer-then-acceptor order, each length-prefixed so no two
 * different identities give the same bytes.
 */
export function transcript(dialer: HelloIdentity, acceptor: HelloIdentity): Buffer {
  const fields = [dialer.nonce, acceptor.nonce, dialer.serverId, acceptor.serverId, dialer.instance, acceptor.instance]
  const parts: Buffer[] = []
  for (const field of fields) {
    const bytes = Buffer.from(field, 'utf8')
    const length = Buffer.alloc(4)
    length.writeUInt32BE(bytes.length)
    parts.push(length, bytes)
  }
  return Buffer.concat(parts)
}

function hmac(secret: string, label: string, data: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${LABEL}|${label}|`).update(data).digest()
}

/** The proof one side sends: HMAC(secret, "queen-mesh-v1|<role>|" ‖ transcript), base64. */
export function proofOf(secret: string, role: Role, script: Buffer): string {
  return hmac(secret, role, script).toString('base64')
}

/** Whether a received proof is the one `role` should have sent (constant time). */
export function proofMatches(secret: string, role: Role, script: Buffer, proof: unknown): boolean {
  if (typeof proof !== 'string') return false
  const expected = hmac(secret, role, script)
  const given = Buffer.from(proof, 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The MAC key of one direction: HMAC(secret, "queen-mesh-v1|key|<direction>|" ‖ transcript). */
export function directionKey(secret: string, direction: Direction, script: Buffer): Buffer {
  return hmac(secret, `key|${direction}`, script)
}

/** `length | JSON` (handshake frames). */
export function encodePlainFrame(body: object): Buffer {
  const json = Buffer.from(JSON.stringify(body), 'utf8')
  const frame = Buffer.alloc(4 + json.length)
  frame.writeUInt32BE(json.length, 0)
  json.copy(frame, 4)
  return frame
}

function macOf(key: Buffer, seq: Buffer, json: Buffer): Buffer {
  return createHmac('sha256', key).update(seq).update(json).digest()
}

/** `length | MAC | seq | JSON`; throws when the frame would exceed {@link MAX_FRAME_BYTES}. */
export function encodeSealedFrame(key: Buffer, seq: bigint, body: object): Buffer {
  const json = Buffer.from(JSON.stringify(body), 'utf8')
  const length = MAC_BYTES + SEQ_BYTES + json.length
  if (length > MAX_FRAME_BYTES) throw new RangeError(`mesh frame of ${length} bytes exceeds ${MAX_FRAME_BYTES}`)
  const frame = Buffer.alloc(4 + length)
  frame.writeUInt32BE(length, 0)
  frame.writeBigUInt64BE(seq, 4 + MAC_BYTES)
  json.copy(frame, 4 + MAC_BYTES + SEQ_BYTES)
  macOf(key, frame.subarray(4 + MAC_BYTES, 4 + MAC_BYTES + SEQ_BYTES), json).copy(frame, 4)
  return frame
}

/** Why a sealed frame was refused. */
export type SealRejection = 'short' | 'mac' | 'seq'

/** Verifies a sealed frame body (without its length prefix) against the key and the expected seq. */
export function openSealedFrame(
  key: Buffer,
  expectedSeq: bigint,
  body: Buffer,
): { ok: true; json: Buffer } | { ok: false; reason: SealRejection } {
  if (body.length < MAC_BYTES + SEQ_BYTES) return { ok: false, reason: 'short' }
  const mac = body.subarray(0, MAC_BYTES)
  const seq = body.subarray(MAC_BYTES, MAC_BYTES + SEQ_BYTES)
  const json = body.subarray(MAC_BYTES + SEQ_BYTES)
  if (!timingSafeEqual(mac, macOf(key, seq, json))) return { ok: false, reason: 'mac' }
  if (seq.readBigUInt64BE(0) !== expectedSeq) return { ok: false, reason: 'seq' }
  return { ok: true, json }
}
