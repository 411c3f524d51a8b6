/** What `queenctl proxy usage` prints (docs/gateway.md, "Metering"): its time window, columns and CSV. */
import type { UsageReport } from '../gateway/store/usage.js'
import { UserError } from './errors.js'
import type { Column } from './output.js'
import { parseTimeMs } from './times.js'

const HOUR_MS = 3_600_000

/** `--from` and `--to` as a window; `from` rounds down to its hour so the hour it falls in is included. */
export function usageWindow(from: string, to: string, now = Date.now()): { from: Date; to: Date } {
  const start = Math.floor(parseTimeMs(from, { flag: '--from', now }) / HOUR_MS) * HOUR_MS
  const end = parseTimeMs(to, { flag: '--to', now })
  if (end <= start) throw new UserError(`--to (${to}) is not after --from (${from})`)
  return { from: new Date(start), to: new Date(end) }
}

export const USAGE_COLUMNS: Column<UsageReport>[] = [
  { header: 'HOUR', value: (row) => row.hour },
  { header: 'TENANT', value: (row) => row.tenant ?? `(deleted) ${row.tenantId}` },
  { header: 'REQUESTS', value: (row) => row.requests },
  { header: 'PUSHED', value: (row) => row.messagesPushed },
  { header: 'DELIVERED', value: (row) => row.messagesDelivered },
  { header: 'ACKED', value: (row) => row.messagesAcked },
  { header: 'BYTES IN', value: (row) => row.bytesIn },
  { header: 'BYTES OUT', value: (row) => row.bytesOut },
  { header: 'TENANT ID', value: (row) => row.tenantId, wide: true },
]

const CSV_FIELDS = [
  'hour',
  'tenant',
  'tenantId',
  'requests',
  'messagesPushed',
  'messagesDelivered',
  'messagesAcked',
  'bytesIn',
  'bytesOut',
] as const

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function usageCsv(rows: readonly UsageReport[]): string {
  const lines = [CSV_FIELDS.join(',')]
  for (const row of rows) lines.push(CSV_FIELDS.map((field) => csvField(row[field])).join(','))
  return `${lines.join('\r\n')}\r\n`
}
