/**
 * The RSS soak (`--soak`, docs/performance.md, "Targets": "broker RSS flat over a 10-minute soak"): our broker at a
 * steady rate with long-poll consumers for N minutes, its RSS sampled every 10 s. "Flat" means the median RSS of the
 * last tenth of the soak is at most 1.1x the median of the tenth after the first (the first tenth is warm-up: caches,
 * JIT, pools filling).
 */
import type { Adapter } from './adapter.js'
import { median, treeRssBytes } from './measure.js'
import { runScenario, type RunSettings, type ScenarioResult } from './scenario-run.js'
import { soakSpec } from './scenarios.js'

const SAMPLE_INTERVAL_MS = 10_000
const FLAT_FACTOR = 1.1

/** What the soak found. */
export interface SoakOutcome {
  samples: { minute: number; rssMb: number }[]
  result?: ScenarioResult
  check: { flat: boolean; detail: string }
}

export async function runSoak(
  ours: Adapter,
  minutes: number,
  settings: RunSettings,
  log: (line: string) => void,
): Promise<SoakOutcome> {
  const pid = ours.brokerPid()
  const samples: SoakOutcome['samples'] = []
  const started = performance.now()
  const sample = () => {
    const rss = pid === undefined ? undefined : treeRssBytes(pid)
    if (rss !== undefined) samples.push({ minute: (performance.now() - started) / 60_000, rssMb: rss / 1024 / 1024 })
  }
  sample()
  const timer = setInterval(sample, SAMPLE_INTERVAL_MS)
  log(`soak: ${minutes} min on ours`)
  let result: ScenarioResult | undefined
  try {
    result = await runScenario(ours, soakSpec(), 1, { ...settings, warmupMs: 0, windowMs: minutes * 60_000 })
  } finally {
    clearInterval(timer)
  }
  sample()
  const tenth = minutes / 10
  const early = median(samples.filter((s) => s.minute >= tenth && s.minute < 2 * tenth).map((s) => s.rssMb))
  const late = median(samples.filter((s) => s.minute >= minutes - tenth).map((s) => s.rssMb))
  const flat = early !== undefined && late !== undefined && late <= early * FLAT_FACTOR
  const detail =
    early === undefined || late === undefined
      ? 'not enough samples'
      : `${early.toFixed(1)} MB -> ${late.toFixed(1)} MB (x${(late / early).toFixed(2)})`
  log(`soak: ${detail}, lost ${result.lost} dup ${result.duplicates}`)
  return { samples, result, check: { flat, detail } }
}
