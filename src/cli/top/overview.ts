/**
 * The Overview pane's figures (docs/cli.md, "The top dashboard"): push, pop, ack, failed and DLQ rates with per-minute
 * sparklines, then pending, processing, max lag, parked pops, maintenance flags, spool records and the
 * stats age, as label/value cells the pane lays out in columns.
 */
import { EMPTY_CELL, formatCount, onOff } from '../format.js'
import { minuteSeries, SPARK_MINUTES, type OpCounts } from './ops-history.js'
import { formatRate, formatSeconds } from './pane-rows.js'
import type { TopData } from './top-data.js'

/** One rate line: label, rate per second, sparkline values (per minute, oldest first). */
export interface RateLine {
  label: string
  rate: string
  minutes: number[]
}

/** A label and its value. */
export interface Cell {
  label: string
  value: string
  /** Drawn as a warning (a maintenance flag on). */
  warn?: boolean
}

const RATE_OPS: [keyof OpCounts, string][] = [
  ['push', 'push/s'],
  ['pop', 'pop/s'],
  ['ack', 'ack/s'],
  ['failed', 'failed/s'],
  ['dlq', 'dlq/s'],
]

/** The rate lines of the Overview. */
export function rateLines(data: TopData, now: number): RateLine[] {
  return RATE_OPS.map(([op, label]) => ({
    label,
    rate: formatRate(data.total?.[op]),
    minutes: minuteSeries(data.ops, op, now),
  }))
}

/** The caption under the sparklines. */
export const SPARK_CAPTION = `sparklines: messages per minute over the last ${SPARK_MINUTES} minutes`

/** The figure cells of the Overview. */
export function overviewCells(data: TopData): Cell[] {
  const status = data.routes.status?.data
  const maintenance = data.routes.maintenance?.data
  const groups = data.routes.groups?.data
  const metrics = data.routes.systemMetrics?.data
  const count = (value: number | undefined) => (value === undefined ? EMPTY_CELL : formatCount(value))
  const maxLag = groups ? Math.max(0, ...groups.map((group) => group.maxTimeLag)) : undefined
  let parked: number | undefined
  if (metrics) {
    // Each replica's newest minute.
    const newest = new Map<string, { at: number; parked: number }>()
    for (const point of metrics.series) {
      const at = Date.parse(point.timestamp)
      const seen = newest.get(point.serverId)
      if (!seen || at > seen.at) newest.set(point.serverId, { at, parked: point.parkedPops })
    }
    parked = [...newest.values()].reduce((sum, entry) => sum + entry.parked, 0)
  }
  const statsAge = status ? (status.statsAge === null ? 'never' : formatSeconds(status.statsAge)) : EMPTY_CELL
  return [
    { label: 'pending', value: count(status?.messages.pending) },
    { label: 'processing', value: count(status?.messages.processing) },
    { label: 'max lag', value: formatSeconds(maxLag) },
    { label: 'queues', value: count(status?.queues.length) },
    { label: 'partitions', value: count(status?.queues.reduce((sum, queue) => sum + queue.partitions, 0)) },
    { label: 'active leases', value: count(status?.leases.active) },
    { label: 'DLQ', value: count(status?.deadLetterQueue.totalMessages) },
    { label: 'parked pops', value: count(parked) },
    { label: 'spool records', value: count(maintenance?.bufferedMessages) },
    { label: 'push-maint', value: onOff(maintenance?.maintenanceMode), warn: maintenance?.maintenanceMode === true },
    {
      label: 'pop-maint',
      value: onOff(maintenance?.popMaintenanceMode),
      warn: maintenance?.popMaintenanceMode === true,
    },
    { label: 'stats age', value: statsAge },
  ]
}
