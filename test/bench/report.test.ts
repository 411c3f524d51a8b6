import { describe, expect, it } from 'vitest'
import type { AdapterName } from '../../bench/adapter.js'
import { renderMarkdown, type BenchReport } from '../../bench/report.js'
import type { ScenarioResult } from '../../bench/scenario-run.js'
import { scenarioSpecs } from '../../bench/scenarios.js'
import { aggregate } from '../../bench/targets.js'

function result(adapter: AdapterName, run: number, peakMb?: number, endMb?: number): ScenarioResult {
  return {
    scenario: 'drain',
    adapter,
    run,
    rate: 10_000,
    rateUnit: 'msg/s',
    brokerRssMaxMb: peakMb,
    brokerRssMb: endMb,
    lost: 0,
    duplicates: 0,
    unexpected: 0,
    refused: 0,
    errors: 0,
  } as ScenarioResult
}

function report(results: ScenarioResult[]): BenchReport {
  return {
    environment: {
      date: '2026-12-03T00:00:00.000Z',
      cores: 2,
      cpuModel: 'test',
      ramGiB: 1,
      kernel: 'test',
      node: 'v20',
      gitSha: 'abc',
      postgres: { version: '17', origin: 'test', settings: {} },
      mode: 'quick',
      runs: 3,
      warmupSeconds: 1,
      windowSeconds: 5,
      adapters: [],
      skipped: [],
      notes: [],
    },
    scenarios: scenarioSpecs(true).filter((spec) => spec.id === 'drain'),
    results,
    aggregates: aggregate(results),
    targets: [],
  }
}

describe('bench report', () => {
  it("shows the broker's peak RSS of each scenario, median (min-max) over runs, beside its RSS at the end", () => {
    const markdown = renderMarkdown(
      report([
        result('ours', 1, 91.2, 88.0),
        result('ours', 2, 97.5, 90.0),
        result('ours', 3, 94.4, 89.0),
        result('ceiling', 1),
      ]),
    )
    expect(markdown).toContain('| broker RSS MB peak / end |')
    const rows = markdown.split('\n').filter((line) => line.startsWith('| drain |'))
    expect(rows.find((row) => row.includes('| ours |'))).toContain('| 94.4 (91.2-97.5) / 89 |')
    expect(rows.find((row) => row.includes('| ceiling |'))).toContain('| n/a / n/a |')
  })
})
