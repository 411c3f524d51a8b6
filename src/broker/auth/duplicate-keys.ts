/**
 * Repeated keys in a token's JSON (issue 40). `JSON.parse`, and so jose, keeps the last value of a key an
 * object repeats: `{"role":"read-only","role":"admin"}` reads as admin here, while an issuer or gateway that
 * keeps the first value reads read-only. The JSON of a verified token is scanned again for repeats, so the
 * broker never disagrees with another reader about what a token says.
 */
import { visit } from 'jsonc-parser'

/**
 * The first key that an object of `json` repeats, or undefined. Keys are compared as decoded, so
 * `"role"` and `"\u0072ole"` are one key, as for `JSON.parse`. Meant for text `JSON.parse` has accepted:
 * the scanner also tolerates comments and trailing commas, which that text cannot hold.
 */
export function repeatedKey(json: string): string | undefined {
  const objects: Set<string>[] = []
  let repeated: string | undefined
  visit(json, {
    onObjectBegin: () => {
      objects.push(new Set())
    },
    onObjectProperty: (key) => {
      const keys = objects.at(-1)
      if (keys === undefined || repeated !== undefined) return
      if (keys.has(key)) repeated = key
      keys.add(key)
    },
    onObjectEnd: () => {
      objects.pop()
    },
  })
  return repeated
}
