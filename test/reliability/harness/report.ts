/**
 * Figures of a harness run (issue 38, docs/reliability.md): per fault, the pushes acknowledged, lost,
 * duplicated after ack and out of order, the time until pushes were stored again, readiness and liveness,
 * and what the broker answered; and the ledger audit of every group, with lists of ids.
 */
import type { AuditReport, Ledger } from '../../support/ledger.js'
import type { CursorRegression, HealthSample } from './probes.js'
import type { Phase } from './scenario.js'

/** Figures of one phase. */
export interface PhaseFigures {
  fault: string
  affects: string[]
  holdMs: number
  settled: boolean
  /** Pushes answered queued, duplicate or buffered during the phase (all brokers). */
  acked: number
  lost: number
  duplicatedAfterAck: number
  outOfOrder: number
  /** From the heal to the first push the affected brokers answered `queued`; undefined when none did. */
  resumeMs?: number
  /** Longest time without any acknowledged push answer from the affected brokers, during the phase. */
  longestAckGapMs?: number
  /** From the fault's start to the first /health answer other than 200 of an affected broker. */
  readinessDownMs?: number
  /** From the heal to empty spools on every affected broker (when they held records at the heal). */
  spoolEmptyMs?: number
  /** From the heal to /health 200 again on every affected broker (when it went down). */
  readinessBackMs?: number
  /** /health/live samples other than 200 on affected brokers (a killed broker does not answer). */
  livenessFailures: number
  /** Answers the affected brokers gave from the start to the heal, by kind. */
  answers: Record<string, number>
  notes: string
}

/** The whole report. */
export interface RunReport {
  profile: string
  seed: number
  startedAt: string
  durationMs: number
  phases: PhaseFigures[]
  audits: AuditReport[]
  cursorSamples: number
  cursorRegressions: CursorRegression[]
  loadErrors: string[]
  /** Broker boots that exited before listening (each retried). */
  bootFailures: string[]
  /** Every violation, for the pass criteria: zero each. */
  totals: { lost: number; duplicatedAfterAck: number; outOfOrder: number; unexpected: number; doubleLeases: number }
}

function phaseOf(phases: Phase[], t: number | undefined): Phase | undefined {
  if (t === undefined) return undefined
  return phases.find((phase) => t >= phase.start && t < phase.end)
}

/** Short label of an answer kind (error texts are kept, numbers inside them folded). */
function answerKind(answer: string): string {
  return answer.replace(/\d{3,}/g, 'N').slice(0, 70)
}

/** Builds the figures of each phase from the ledger, the audits and the health samples. */
export function buildReport(args: {
  profile: string
  seed: number
  startedAt: number
  phases: Phase[]
  ledger: Ledger
  audits: AuditReport[]
  health: HealthSample[]
  cursorSamples: number
  cursorRegressions: CursorRegression[]
  loadErrors: string[]
  bootFailures: string[]
}): RunReport {
  const { phases, ledger, audits, health } = args
  const pushT0 = new Map(ledger.pushes.map((entry) => [entry.txId, entry.t0]))
  const count = (ids: string[], phase: Phase) => ids.filter((id) => phaseOf(phases, pushT0.get(id)) === phase).length
  const figures = phases.map((phase): PhaseFigures => {
    const affected = new Set(phase.affects)
    const acked = ledger.pushes.filter(
      (entry) =>
        (entry.outcome === 'ok' || entry.outcome === 'buffered') &&
        entry.t1 !== undefined &&
        entry.t1 >= phase.start &&
        entry.t1 < phase.end,
    ).length
    const answers: Record<string, number> = {}
    const ackTimes: number[] = []
    let resumeMs: number | undefined
    for (const answer of ledger.answers) {
      if (!affected.has(answer.broker)) continue
      if (answer.t >= phase.start && answer.t <= phase.healed) {
        const kind = answerKind(answer.answer)
        answers[kind] = (answers[kind] ?? 0) + 1
      }
      const acknowledged = ['queued', 'duplicate', 'buffered'].includes(answer.answer)
      if (acknowledged && answer.t >= phase.start && answer.t <= phase.end) ackTimes.push(answer.t)
      if (answer.answer === 'queued' && answer.t >= phase.healed && resumeMs === undefined) {
        resumeMs = answer.t - phase.healed
      }
    }
    ackTimes.sort((a, b) => a - b)
    let longestAckGapMs = ackTimes.length > 0 ? ackTimes[0]! - phase.start : phase.end - phase.start
    for (let index = 1; index < ackTimes.length; index++) {
      longestAckGapMs = Math.max(longestAckGapMs, ackTimes[index]! - ackTimes[index - 1]!)
    }
    const samples = health.filter(
      (sample) => affected.has(sample.broker) && sample.t >= phase.start && sample.t < phase.end,
    )
    const down = samples.find((sample) => sample.ready !== 200 && sample.t <= phase.healed + 1000)
    let readinessBackMs: number | undefined
    if (down) {
      for (const broker of affected) {
        const back = samples.find(
          (sample) => sample.broker === broker && sample.t >= phase.healed && sample.ready === 200,
        )
        if (back) readinessBackMs = Math.max(readinessBackMs ?? 0, back.t - phase.healed)
      }
    }
    let spoolEmptyMs: number | undefined
    const atHeal = samples.filter((sample) => sample.t <= phase.healed && (sample.spooled ?? 0) > 0)
    if (atHeal.length > 0) {
      const empty = samples.find(
        (sample) =>
          sample.t >= phase.healed &&
          [...affected].every((broker) => {
            const latest = samples.filter((other) => other.broker === broker && other.t <= sample.t).at(-1)
            return latest?.spooled === 0
          }),
      )
      if (empty) spoolEmptyMs = empty.t - phase.healed
    }
    return {
      fault: phase.fault,
      spoolEmptyMs,
      affects: phase.affects,
      holdMs: phase.healed - phase.start,
      settled: phase.settled,
      acked,
      lost: audits.reduce((sum, audit) => sum + count(audit.lost, phase), 0),
      duplicatedAfterAck: audits.reduce((sum, audit) => sum + count(audit.duplicatedAfterAck, phase), 0),
      outOfOrder: audits.reduce((sum, audit) => sum + count(audit.outOfOrder, phase), 0),
      resumeMs,
      longestAckGapMs,
      readinessDownMs: down ? down.t - phase.start : undefined,
      readinessBackMs,
      livenessFailures: samples.filter((sample) => sample.live !== 200).length,
      answers,
      notes: phase.notes,
    }
  })
  const sum = (pick: (audit: AuditReport) => string[]) => audits.reduce((total, audit) => total + pick(audit).length, 0)
  return {
    profile: args.profile,
    seed: args.seed,
    startedAt: new Date(args.startedAt).toISOString(),
    durationMs: Date.now() - args.startedAt,
    phases: figures,
    audits,
    cursorSamples: args.cursorSamples,
    cursorRegressions: args.cursorRegressions,
    loadErrors: args.loadErrors,
    bootFailures: args.bootFailures,
    totals: {
      lost: sum((audit) => audit.lost),
      duplicatedAfterAck: sum((audit) => audit.duplicatedAfterAck),
      outOfOrder: sum((audit) => audit.outOfOrder),
      unexpected: sum((audit) => audit.unexpected),
      doubleLeases: sum((audit) => audit.doubleLeases),
    },
  }
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${(value / 1000).toFixed(1)} s`)

/** The per-fault table of docs/reliability.md, in Markdown. */
export function markdownTable(report: RunReport): string {
  const lines = [
    '| fault | hold | acked | lost | dup after ack | out of order | pushes queued again after heal | longest gap without an ack | /health not 200 after | /health 200 again after heal | spool empty after heal | /health/live failures | answers of the affected broker during the fault |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const phase of report.phases) {
    const answers = Object.entries(phase.answers)
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')
    lines.push(
      `| ${phase.fault} | ${ms(phase.holdMs)} | ${phase.acked} | ${phase.lost} | ${phase.duplicatedAfterAck} | ${phase.outOfOrder} | ${ms(phase.resumeMs)} | ${ms(phase.longestAckGapMs)} | ${phase.readinessDownMs === undefined ? 'stayed 200' : ms(phase.readinessDownMs)} | ${ms(phase.readinessBackMs)} | ${ms(phase.spoolEmptyMs)} | ${phase.livenessFailures} | ${answers || '-'} |`,
    )
  }
  return lines.join('\n')
}

/** One line per group: the audit's counts. */
export function auditLines(report: RunReport): string[] {
  return report.audits.map(
    (audit) =>
      `group ${audit.group}: acknowledged ${audit.acknowledged}, delivered ${audit.delivered}, lost ${audit.lost.length}, ` +
      `duplicated-after-ack ${audit.duplicatedAfterAck.length}, out-of-order ${audit.outOfOrder.length}, ` +
      `unexpected ${audit.unexpected.length}, double-leases ${audit.doubleLeases.length}, redelivered ${audit.redelivered.length}, ` +
      `recovered ${audit.recovered.length}, failed-yet-delivered ${audit.failedYetDelivered.length}`,
  )
}

/** The long run's table: one row per kind of fault, its occurrences added up (worst times). */
export function aggregateTable(report: RunReport): string {
  const groups = new Map<string, PhaseFigures[]>()
  for (const phase of report.phases) groups.set(phase.fault, [...(groups.get(phase.fault) ?? []), phase])
  const worst = (phases: PhaseFigures[], pick: (phase: PhaseFigures) => number | undefined) => {
    const values = phases.map(pick).filter((value): value is number => value !== undefined)
    return values.length > 0 ? Math.max(...values) : undefined
  }
  const lines = [
    '| fault | times | acked | lost | dup after ack | out of order | worst: pushes queued again after heal | worst: gap without an ack | worst: /health not 200 after | worst: spool empty after heal |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const [fault, phases] of groups) {
    const total = (pick: (phase: PhaseFigures) => number) => phases.reduce((sum, phase) => sum + pick(phase), 0)
    lines.push(
      `| ${fault} | ${phases.length} | ${total((p) => p.acked)} | ${total((p) => p.lost)} | ${total((p) => p.duplicatedAfterAck)} | ${total((p) => p.outOfOrder)} | ${ms(worst(phases, (p) => p.resumeMs))} | ${ms(worst(phases, (p) => p.longestAckGapMs))} | ${ms(worst(phases, (p) => p.readinessDownMs))} | ${ms(worst(phases, (p) => p.spoolEmptyMs))} |`,
    )
  }
  return lines.join('\n')
}

/**
 * For each double lease and each delivery after an ack (at most `limit` of each per group): every delivery
 * and confirmed ack of the id, with the phase it fell in, so a failed run says what happened without its
 * raw ledger (a CI machine keeps no files).
 */
export function violationLines(args: {
  audits: AuditReport[]
  ledger: Ledger
  phases: Phase[]
  startedAt: number
  limit?: number
}): string[] {
  const { audits, ledger, phases, startedAt, limit = 5 } = args
  const at = (t: number | undefined) =>
    t === undefined ? '?' : `+${((t - startedAt) / 1000).toFixed(3)}s (${phaseOf(phases, t)?.fault ?? 'no fault'})`
  const lines: string[] = []
  for (const audit of audits) {
    const ids = [
      ...audit.doubleLeases.slice(0, limit).map((id) => ['double lease', id] as const),
      ...audit.duplicatedAfterAck.slice(0, limit).map((id) => ['delivered after ack', id] as const),
    ]
    for (const [kind, id] of ids) {
      lines.push(`${kind} in group ${audit.group}: ${id}`)
      for (const entry of ledger.deliveries) {
        if (entry.group !== audit.group || entry.txId !== id) continue
        lines.push(
          `  delivered by ${entry.broker ?? '?'} under lease ${entry.leaseId ?? '?'}: pop sent ${at(entry.sent)}, ` +
            `answer at ${at(entry.t)}`,
        )
      }
      for (const ack of ledger.acks) {
        if (ack.group === audit.group && ack.txId === id) lines.push(`  ack confirmed at ${at(ack.t)}`)
      }
    }
  }
  return lines
}
