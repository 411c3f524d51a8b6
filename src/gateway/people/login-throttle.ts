/**
 * Slows down password guessing per user name (docs/gateway.md, "People: users, sessions and sign-in"). A few typos
 * are free; after that each further failure doubles the wait before the name may be tried again, up to a minute.
 * Names that do not exist are throttled exactly like names that do, so the answer never tells them apart.
 */

const FREE_FAILURES = 3
const FIRST_DELAY_MS = 1000
const MAX_DELAY_MS = 60_000
const MAX_NAMES = 10_000

interface Failures {
  count: number
  blockedUntil: number
}

export class LoginThrottle {
  private readonly failures = new Map<string, Failures>()
  private readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
  }

  /** Milliseconds the name must still wait, 0 when it may be tried now. */
  waitMs(name: string): number {
    const entry = this.failures.get(name.toLowerCase())
    return entry ? Math.max(0, entry.blockedUntil - this.now()) : 0
  }

  failed(name: string): void {
    const key = name.toLowerCase()
    const entry = this.failures.get(key) ?? { count: 0, blockedUntil: 0 }
    entry.count += 1
    if (entry.count > FREE_FAILURES) {
      entry.blockedUntil = this.now() + Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (entry.count - FREE_FAILURES - 1))
    }
    this.failures.delete(key)
    if (this.failures.size >= MAX_NAMES) this.failures.delete(this.failures.keys().next().value!)
    this.failures.set(key, entry)
  }

  succeeded(name: string): void {
    this.failures.delete(name.toLowerCase())
  }
}
