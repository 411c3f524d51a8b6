/**
 * The status bar: the connection (live, paused, unreachable, token refused, broker errors) with the age of
 * the last answer while it is down, and the two maintenance flags.
 */
import { formatDuration, onOff } from '../cli/format.js'
import type { TopData } from '../cli/top/top-data.js'
import { Line, type Tone } from './Line.js'

export interface StatusBarProps {
  data: TopData
  server: string
  paused: boolean
  intervalMs: number
  now: number
}

/** Intervals without any answer after which a connection that has not failed is called silent. */
const SILENT_AFTER_INTERVALS = 3

/** A failure's text without the broker's URL, which the header already shows. */
function reasonOf(message: string | undefined, server: string): string {
  return (message ?? '')
    .replace(`cannot reach the broker at ${server}: `, '')
    .replace(` from the broker at ${server}`, '')
}

function connectionText({ data, server, paused, intervalMs, now }: StatusBarProps): { text: string; tone: Tone } {
  const { connection } = data
  const reason = reasonOf(connection.message, server)
  const lastAnswer =
    connection.lastOkAt === undefined ? 'no answer yet' : `last answer ${formatDuration(now - connection.lastOkAt)} ago`
  const retrying = paused ? 'paused' : `retrying every ${formatDuration(intervalMs)}`
  switch (connection.state) {
    case 'connecting':
      return { text: `… connecting to ${server}`, tone: 'dim' }
    case 'ok': {
      if (paused) return { text: '‖ paused (p resumes)', tone: 'warn' }
      // A broker that accepts connections but stops answering shows no failure until --timeout.
      const silentMs = now - (connection.lastOkAt ?? now)
      if (silentMs > SILENT_AFTER_INTERVALS * intervalMs + 1000) {
        return { text: `… no answer for ${formatDuration(silentMs)} · waiting (--timeout)`, tone: 'warn' }
      }
      return { text: '● live', tone: 'ok' }
    }
    case 'unreachable':
      return { text: `✕ broker unreachable (${reason}) · ${retrying} · ${lastAnswer}`, tone: 'error' }
    case 'unauthorized':
      return {
        text: `✕ token refused, expired? (${reason}) · ${retrying} · ${lastAnswer}`,
        tone: 'error',
      }
    case 'server-error':
      return { text: `! broker error (${reason}) · ${retrying}`, tone: 'warn' }
  }
}

export function StatusBar(props: StatusBarProps) {
  const maintenance = props.data.routes.maintenance?.data
  const flags = `push-maint ${onOff(maintenance?.maintenanceMode)} · pop-maint ${onOff(maintenance?.popMaintenanceMode)}`
  const { text, tone } = connectionText(props)
  const flagsOn = maintenance?.maintenanceMode === true || maintenance?.popMaintenanceMode === true
  return <Line text={`${text} · ${flags}`} tone={tone === 'ok' && flagsOn ? 'warn' : tone} />
}
