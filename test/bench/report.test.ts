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

function report(results: ScenarioResult[], ids: string[] = ['drain']): BenchReport {
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
    scenarios: scenarioSpecs(true).filter((spec) => ids.includes(spec.id)),
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

  it('divides fan-out CPU by its groups for the CPU per delivery, with and without the push, beside drain', () => {
    // CPU seconds per 100k messages, as the table shows them: a fan-out message is delivered to 4 groups.
    const cpu = (scenario: ScenarioResult['scenario'], broker: number, pg: number) =>
      ({ ...result('ours', 1), scenario, brokerCpuPer100k: broker, pgCpuPer100k: pg }) as ScenarioResult
    const markdown = renderMarkdown(
      report(
        [cpu('drain', 1.8, 4.0), cpu('fanout', 8.6, 9.8), cpu('push-100', 2.0, 1.8)],
        ['push-100', 'drain', 'fanout'],
      ),
    )
    expect(markdown).toContain('CPU per delivery (fan-out to 4 groups against drain):')
    expect(markdown).toContain(
      '- ours: broker 21.5 µs per fan-out delivery (16.5 without the push), 18 per drain delivery; PostgreSQL 24.5 µs per fan-out delivery (20 without the push), 40 per drain delivery',
    )
  })

  it('tables the memory map at idle and at each peak when the run read one', () => {
    const map = { total: 100, nodeBinary: 40, v8Heap: 45, v8Code: 2, malloc: 9, otherAnonymous: 1, libraries: 3 }
    const withMap = { ...result('ours', 1, 100, 95), brokerMemoryAtPeak: map }
    const markdown = renderMarkdown({ ...report([withMap]), idleBrokerMemory: { ...map, total: 64, v8Heap: 9 } })
    expect(markdown).toContain(
      '| when | RSS | node binary | V8 heap | V8 code | malloc | other anonymous | libraries |',
    )
    expect(markdown).toContain('| idle | 64 | 40 | 9 | 2 | 9 | 1 | 3 |')
    expect(markdown).toContain('| drain peak (ours, run 1) | 100 | 40 | 45 | 2 | 9 | 1 | 3 |')
    expect(renderMarkdown(report([result('ours', 1)]))).not.toContain('| when | RSS |')
  })
})
