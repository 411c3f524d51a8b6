/**
 * What a hint from another replica does here (docs/operations.md, "Frame types" and "Hints through PostgreSQL"),
 * whichever path it came by: a wake re-checks matching parked pops, a maintenance flag is applied and then confirmed
 * from PostgreSQL, an invalidation drops cached queue options. The mesh and the PostgreSQL channel carry the same
 * wakes, so a wake whose mark was already seen from its origin is skipped: one re-check per wake, not one per path.
 */
import type { Hint } from '../db/hint-channel.js'
import type { MaintenanceFlags } from './maintenance.js'
import type { PopWaiters } from './pop-waiters.js'
import type { QueueRegistry } from './queue-registry.js'

/** The path a hint arrived by (the `source` of queen_pop_wakeups_total). */
export type HintPath = 'mesh' | 'pg_notify'

/** Origins x wake keys remembered; past it the memory starts over (a few double re-checks, never a lost one). */
const REMEMBERED_WAKES = 20_000

/** Applies hints from other replicas, once per wake. */
export class HintEffects {
  private readonly seen = new Map<string, number>()
  /** Wakes skipped because the other path already delivered them. */
  duplicatesSkipped = 0
  private readonly services: { waiters: PopWaiters; maintenance: MaintenanceFlags; registry: QueueRegistry }

  constructor(services: { waiters: PopWaiters; maintenance: MaintenanceFlags; registry: QueueRegistry }) {
    this.services = services
  }

  /** Applies one hint that came from `origin` (its instance id) by `path`. */
  apply(hint: Hint, origin: string, path: HintPath): void {
    const { waiters, maintenance, registry } = this.services
    switch (hint.type) {
      case 'POP_WAKE':
        for (const wake of hint.wakes) {
          if (wake.mark !== undefined && !this.firstSight(origin, wake)) continue
          waiters.wake(wake.tenant, wake.queue, wake.partition, path)
        }
        return
      case 'MAINTENANCE_MODE_SET':
      case 'POP_MAINTENANCE_MODE_SET':
        maintenance.apply(
          hint.type === 'MAINTENANCE_MODE_SET' ? 'push' : 'pop',
          hint.enabled,
          path === 'mesh' ? 'mesh' : 'database',
        )
        // PostgreSQL wins on conflict: confirm from it.
        maintenance.load('database').catch(() => undefined)
        return
      case 'CONFIG_INVALIDATE':
        registry.invalidate(hint.queue === null ? undefined : hint.tenant, hint.queue ?? undefined)
        return
    }
  }

  private firstSight(origin: string, wake: { tenant: string; queue: string; partition: string | null; mark?: number }) {
    const key = `${origin}\u0000${wake.tenant}\u0000${wake.queue}\u0000${wake.partition ?? '\u0001'}`
    const mark = wake.mark ?? 0
    const last = this.seen.get(key)
    if (last !== undefined && mark <= last) {
      this.duplicatesSkipped += 1
      return false
    }
    if (this.seen.size >= REMEMBERED_WAKES) this.seen.clear()
    this.seen.set(key, mark)
    return true
  }
}
