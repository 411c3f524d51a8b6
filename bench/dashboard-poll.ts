/**
 * The requests the dashboard's overview makes on each 2 s tick (dashboard/src/pages/Overview.tsx and the
 * header's /health), for bench/dashboard-cost.ts: the same paths with the same window, so the bench costs the
 * broker what an open overview costs it. test/dashboard/pages.test.ts holds the page to this list.
 */

/** The overview's refresh interval (dashboard/src/use-poll.ts). */
export const TICK_MS = 2000

/** The paths of one overview tick at `nowMs`, for an admin (who also gets the replicas' metrics). */
export function overviewTick(nowMs: number): string[] {
  const range = new URLSearchParams({
    from: new Date(nowMs - 3_600_000).toISOString(),
    to: new Date(nowMs).toISOString(),
  }).toString()
  return [
    '/health',
    `/api/v1/status?${range}`,
    '/api/v1/status/top?limit=10',
    `/api/v1/analytics/retention?${range}`,
    `/api/v1/analytics/system-metrics?${range}`,
  ]
}

/** One measured phase: the broker's (and PostgreSQL's) CPU seconds over `seconds`, with or without the page. */
export interface CostPhase {
  queues: number
  polling: boolean
  seconds: number
  brokerCpuSeconds: number
  postgresCpuSeconds: number | undefined
  /** Requests sent (0 without polling) and the bytes of their answers. */
  requests: number
  answerBytes: number
}

const percent = (cpu: number, seconds: number) => `${((100 * cpu) / seconds).toFixed(2)} %`

/** The report's table: per queue count, the idle broker, the broker with the overview open, and the difference. */
export function costTable(phases: readonly CostPhase[]): string {
  const lines = [
    '| queues | broker CPU, idle | broker CPU, overview open | cost of the overview | PostgreSQL CPU, idle → open | answer bytes per tick |',
    '|---|---|---|---|---|---|',
  ]
  const counts = [...new Set(phases.map((phase) => phase.queues))]
  for (const queues of counts) {
    const idle = phases.find((phase) => phase.queues === queues && !phase.polling)
    const open = phases.find((phase) => phase.queues === queues && phase.polling)
    if (idle === undefined || open === undefined) continue
    const cost = open.brokerCpuSeconds / open.seconds - idle.brokerCpuSeconds / idle.seconds
    const pg =
      idle.postgresCpuSeconds === undefined || open.postgresCpuSeconds === undefined
        ? 'n/a'
        : `${percent(idle.postgresCpuSeconds, idle.seconds)} → ${percent(open.postgresCpuSeconds, open.seconds)}`
    const ticks = Math.max(1, open.requests / overviewTick(0).length)
    lines.push(
      `| ${queues.toLocaleString('en-US')} | ${percent(idle.brokerCpuSeconds, idle.seconds)} | ${percent(open.brokerCpuSeconds, open.seconds)} | ${(100 * cost).toFixed(2)} % | ${pg} | ${Math.round(open.answerBytes / ticks).toLocaleString('en-US')} |`,
    )
  }
  return lines.join('\n')
}
