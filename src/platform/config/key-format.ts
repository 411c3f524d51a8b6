/** The AES-256 key format of an encryption-key variable: 64 hexadecimal characters, never quoted back. */
import { createHash } from 'node:crypto'

/** Why `value` is not a usable key, without ever quoting it; undefined when it is fine. */
export function encryptionKeyProblem(value: string, name = 'QUEEN_ENCRYPTION_KEY'): string | undefined {
  const expected = 'expected 64 hexadecimal characters'
  const hint = /[\r\n]$/.test(value)
    ? 'a trailing newline?'
    : /\s$/.test(value)
      ? 'a trailing space?'
      : /^\s/.test(value)
        ? 'a leading space?'
        : /^0x/i.test(value)
          ? 'remove the 0x prefix'
          : undefined
  const length = Array.from(value).length
  if (length !== 64) {
    return `${name} has ${length} characters; ${expected} (${hint ?? 'openssl rand -hex 32 makes one'})`
  }
  const position = value.search(/[^0-9a-fA-F]/)
  if (position >= 0) {
    return `${name} has a non-hexadecimal character at position ${position + 1}; ${expected} (${hint ?? '0-9, a-f'})`
  }
  return undefined
}

/** Key id shown in the boot log and stored with ciphertext: first 16 hex characters of SHA-256 of the key bytes. */
export function encryptionKeyId(keyHex: string): string {
  return createHash('sha256').update(Buffer.from(keyHex, 'hex')).digest('hex').slice(0, 16)
}
