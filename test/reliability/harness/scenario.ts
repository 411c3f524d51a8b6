/**
 * The two profiles of issue 38. `short`: every fault once, in a fixed order, under load (a few minutes, in
 * CI). `long`: mixed load for a duration (30 min) with faults drawn at random intervals from a seed, so a
 * failing run can be replayed with `--seed`.
 */
import type { Harness } from './harness.js'
import { FAULTS, faultNamed, type Fault } from './faults.js'

/** When a fault ran. */
export interface Phase {
  fault: string
  affects: string[]
  start: number
  /** When the fault ended (the heal). */
  healed: number
  /** When the system had settled after it (or the next phase began). */
  end: number
  settled: boolean
  notes: string
}

/** Options of a run. */
export interface ScenarioOptions {
  profile: 'short' | 'long'
  seed: number
  /** Long profile: total run time, ms. */
  durationMs: number
  /** Restrict to these faults (by name); default all. */
  faults?: string[]
  log: (line: string) => void
}

/** mulberry32: a small seeded generator, so a seed replays the same schedule. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Short-profile hold of each fault, ms (the 30 s partition is 20 s here; the long profile holds 30 s). */
const SHORT_HOLD_MS: Record<string, number> = {
  'pg-failover': 2000,
  'old-primary-read-only': 6000,
  'pg-immediate-stop': 5000,
  'pg-delay-200ms': 10_000,
  'pg-loss-5pct': 10_000,
  'pg-partition': 20_000,
  'pg-one-way': 10_000,
  'mesh-delay-200ms': 6000,
  'mesh-loss-5pct': 6000,
  'mesh-partition': 6000,
  'mesh-one-way': 6000,
  'broker-sigkill': 2000,
  'broker-sigterm': 2000,
  'spool-disk-full': 25_000,
  'clock-step': 8000,
}

const SETTLE_TIMEOUT_MS = 60_000
/** After a fault, how long to wait for empty spools before the next one (best effort, see Harness.settle). */
const SPOOL_WAIT_MS = 10_000
const BASELINE_MS = 5000

/** Runs one fault as a phase. */
async function runPhase(harness: Harness, fault: Fault, holdMs: number, log: (line: string) => void): Promise<Phase> {
  const start = Date.now()
  let healed = 0
  log(`fault ${fault.name}: ${fault.description} (hold ${holdMs} ms)`)
  const notes = await fault.run(harness, holdMs, () => {
    healed = Date.now()
  })
  if (!healed) healed = Date.now()
  const settled = await harness.settle(SETTLE_TIMEOUT_MS, SPOOL_WAIT_MS)
  const end = Date.now()
  log(
    `fault ${fault.name}: healed after ${healed - start} ms, settled ${settled ? 'yes' : 'NO'} after ${end - healed} ms`,
  )
  return { fault: fault.name, affects: fault.affects(harness), start, healed, end, settled, notes: notes ?? '' }
}

/** Runs the profile's faults under the already started load; answers the phases in order. */
export async function runScenario(harness: Harness, options: ScenarioOptions): Promise<Phase[]> {
  const phases: Phase[] = []
  const baselineStart = Date.now()
  await new Promise((resolve) => setTimeout(resolve, BASELINE_MS))
  phases.push({
    fault: 'none (baseline)',
    affects: harness.brokers.map((broker) => broker.name),
    start: baselineStart,
    healed: Date.now(),
    end: Date.now(),
    settled: true,
    notes: '',
  })
  const chosen = options.faults?.map(faultNamed) ?? FAULTS
  if (options.profile === 'short') {
    for (const fault of chosen)
      phases.push(await runPhase(harness, fault, SHORT_HOLD_MS[fault.name] ?? 5000, options.log))
    return phases
  }
  // Long: faults at random intervals (5-40 s apart), holds of 1-3x the short hold (partitions 30 s), until the
  // duration is spent. A failover always brings the old primary back read-only next, so the pair is whole again.
  const random = seededRandom(options.seed)
  const deadline = Date.now() + options.durationMs
  while (Date.now() < deadline) {
    const gapMs = 5000 + Math.floor(random() * 35_000)
    await new Promise((resolve) => setTimeout(resolve, Math.min(gapMs, Math.max(0, deadline - Date.now()))))
    if (Date.now() >= deadline) break
    const fault = chosen[Math.floor(random() * chosen.length)]!
    const base = SHORT_HOLD_MS[fault.name] ?? 5000
    const holdMs = fault.name === 'pg-partition' ? 30_000 : Math.round(base * (1 + random() * 2))
    phases.push(await runPhase(harness, fault, holdMs, options.log))
    if (harness.crashes().length > 0) break
    if (fault.name === 'pg-failover') {
      phases.push(await runPhase(harness, faultNamed('old-primary-read-only'), holdMs, options.log))
    }
  }
  return phases
}
