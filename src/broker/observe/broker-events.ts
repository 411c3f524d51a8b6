/**
 * What happened on the data plane, as events: the engines report, and observers (Prometheus counters,
 * the per-minute metrics writer, the periodic `rates` log block) listen. Keeps instrumentation out of
 * the hot paths' logic and lets each observer live in its own module.
 */

import type { WakeSource } from './wake-sources.js'

/** Push outcome as counted by metrics (docs/operations.md, "Prometheus series"). */
export type PushOutcomeKind = 'queued' | 'buffered' | 'duplicate' | 'failed'
/** Cause of a counted failure. */
export type FailureCause = 'nack' | 'lease_expired'

/** Handlers an observer may implement; every one is optional. */
export interface BrokerEventHandlers {
  /** `count` push items of one queue ended with `outcome`. */
  pushed(tenant: string, queue: string, outcome: PushOutcomeKind, count: number): void
  /** `count` messages of one queue were delivered by a pop; `lagMs` are their ages at delivery. */
  delivered(tenant: string, queue: string, count: number, lagMs: number[]): void
  /** `count` acks of one queue were applied with `status`. */
  acked(tenant: string, queue: string, status: string, count: number): void
  /** `count` failures were counted for one queue. */
  failed(tenant: string, queue: string, cause: FailureCause, count: number): void
  /** `count` messages of one queue were dead-lettered. */
  deadLettered(tenant: string, queue: string, count: number): void
  /** `count` payloads could not be encrypted (push) or decrypted (pop: tampered or corrupted ciphertext). */
  encryptionFailed(op: 'encrypt' | 'decrypt', count: number): void
  /** A wake or the backoff timer re-checked parked pops. */
  popWakeup(source: WakeSource): void
  /** A request was refused by the auth hook (401 or 403), for `reason`. */
  authFailed(reason: string): void
  /** A JWKS fetch ended with `outcome` (`ok`, `error`, `timeout`, `invalid`). */
  jwksFetched(outcome: string): void
  /** An HTTP request finished (long-poll parking excluded from `durationMs`). */
  request(route: string, method: string, status: number, durationMs: number): void
}

/** Fan-out of events to registered observers. An observer that throws never breaks the data plane. */
export class BrokerEvents {
  private readonly observers: Partial<BrokerEventHandlers>[] = []

  /** Registers an observer; returns a function that removes it. */
  observe(observer: Partial<BrokerEventHandlers>): () => void {
    this.observers.push(observer)
    return () => {
      const index = this.observers.indexOf(observer)
      if (index >= 0) this.observers.splice(index, 1)
    }
  }

  emit<K extends keyof BrokerEventHandlers>(event: K, ...args: Parameters<BrokerEventHandlers[K]>): void {
    for (const observer of this.observers) {
      const handler = observer[event] as ((...values: Parameters<BrokerEventHandlers[K]>) => void) | undefined
      if (!handler) continue
      try {
        handler.apply(observer, args)
      } catch {
        // Observers are best-effort by contract.
      }
    }
  }
}
