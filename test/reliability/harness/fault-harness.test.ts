/**
 * Issue 38: nothing acknowledged is lost through a PostgreSQL failover, network faults and a long mixed
 * run, proven by a ledger. Run by `npm run test:reliability` (run.ts sets the profile), not by `npm test`:
 * it needs root, network namespaces, nftables, Debian's PostgreSQL 15 and libfaketime.
 */
import { writeFile } from 'node:fs/promises'
import { expect, it } from 'vitest'
import { describeWithClient } from '../../compat/client.js'
import type { Ledger } from '../../support/ledger.js'
import { Harness } from './harness.js'
import { EXPECTED, LEASE_SECONDS } from './load.js'
import { aggregateTable, auditLines, buildReport, markdownTable, violationLines } from './report.js'
import { runScenario } from './scenario.js'

const profile = process.env.QUEEN_RELIABILITY_PROFILE === 'long' ? 'long' : 'short'
const seed = Number(process.env.QUEEN_RELIABILITY_SEED ?? '1')
const durationMs = Number(process.env.QUEEN_RELIABILITY_DURATION_MS ?? String(30 * 60_000))
const faults = process.env.QUEEN_RELIABILITY_FAULTS ? process.env.QUEEN_RELIABILITY_FAULTS.split(',') : undefined
const reportFile = process.env.QUEEN_RELIABILITY_REPORT ?? '/tmp/queen-reliability-report.json'
const PRODUCERS_PER_BROKER = 2
/** The drain gives up after this long without a new delivery, or after DRAIN_CAP_MS in all. */
const DRAIN_IDLE_MS = 180_000
const DRAIN_CAP_MS = 30 * 60_000

/** True when every group has received every push acknowledged for it. */
function allDelivered(ledger: Ledger): boolean {
  const delivered = new Map<string, Set<string>>()
  for (const entry of ledger.deliveries) {
    let ids = delivered.get(entry.group)
    if (!ids) delivered.set(entry.group, (ids = new Set()))
    ids.add(entry.txId)
  }
  return Object.entries(EXPECTED).every(([group, expected]) =>
    ledger.pushes
      .filter((entry) => expected(entry) && (entry.outcome === 'ok' || entry.outcome === 'buffered'))
      .every((entry) => delivered.get(group)?.has(entry.txId) === true),
  )
}

describeWithClient(`fault harness, ${profile} profile`, () => {
  it(
    'loses no acknowledged push, duplicates none after its ack and keeps partition order through every fault',
    { timeout: durationMs + DRAIN_CAP_MS + 30 * 60_000 },
    async () => {
      const startedAt = Date.now()
      const log = (line: string) =>
        process.stdout.write(`[harness +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${line}\n`)
      log(`profile ${profile}, seed ${seed}${profile === 'long' ? `, ${durationMs / 60_000} min` : ''}`)
      const harness = await Harness.start()
      try {
        log(`brokers ${harness.urls().join(', ')}; primary ${harness.pair.primary.name}`)
        harness.load.start(PRODUCERS_PER_BROKER)
        const phases = await runScenario(harness, { profile, seed, durationMs, faults, log })
        // A broker that died on its own is the first finding: nothing else is worth waiting for.
        expect(harness.crashes()).toEqual([])
        await harness.load.stopProducers()
        log('producers stopped; draining')
        // Stable twice: a transaction in flight may still add a derived push after the first check.
        const drained = await harness.load.drain(
          DRAIN_IDLE_MS,
          DRAIN_CAP_MS,
          () => allDelivered(harness.ledger),
          () => harness.ledger.deliveries.length,
        )
        await harness.cursors.sample('end')
        const audits = Object.entries(EXPECTED).map(([group, expected]) =>
          harness.ledger.audit(group, expected, LEASE_SECONDS * 1000),
        )
        const report = buildReport({
          profile,
          seed,
          startedAt,
          phases,
          ledger: harness.ledger,
          audits,
          health: harness.health.samples,
          cursorSamples: harness.cursors.samples,
          cursorRegressions: harness.cursors.regressions,
          loadErrors: harness.load.loadErrors(),
          bootFailures: harness.bootFailures(),
        })
        await writeFile(reportFile, JSON.stringify(report, null, 2))
        // The raw ledger and samples beside it, to look into any figure.
        const { answers, pushes, deliveries, acks } = harness.ledger
        await writeFile(
          `${reportFile}.raw.json`,
          JSON.stringify({ phases, answers, pushes, deliveries, acks, health: harness.health.samples }),
        )
        log(`drained: ${drained ? 'yes' : 'NO'}; report written to ${reportFile}`)
        const table =
          profile === 'long' ? `${aggregateTable(report)}\n\n${markdownTable(report)}` : markdownTable(report)
        const violations = violationLines({ audits, ledger: harness.ledger, phases, startedAt })
        process.stdout.write(`\n${table}\n\n${[...auditLines(report), ...violations].join('\n')}\n`)
        process.stdout.write(
          `cursor samples ${report.cursorSamples}, regressions ${report.cursorRegressions.length}; ` +
            `broker boots that exited ${report.bootFailures.length}; seed ${seed}\n`,
        )
        expect(report.totals).toEqual({ lost: 0, duplicatedAfterAck: 0, outOfOrder: 0, unexpected: 0, doubleLeases: 0 })
        expect(report.cursorRegressions).toEqual([])
        expect(report.loadErrors).toEqual([])
        expect(report.bootFailures).toEqual([])
        expect(phases.filter((phase) => !phase.settled).map((phase) => phase.fault)).toEqual([])
        expect(audits.every((audit) => audit.acknowledged > 0)).toBe(true)
      } finally {
        for (const broker of harness.brokers) {
          await writeFile(`${reportFile}.${broker.name}.log`, broker.output()).catch(() => undefined)
        }
        await harness.stop()
      }
    },
  )
})
