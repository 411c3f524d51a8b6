/** Words of the inspection pages: a timestamp in the browser's zone, an offset on a timeline, a status. */

const dateTime = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
})

/** 06/12/2026, 01:45:07; a dash for null. */
export function formatWhen(iso: string | null): string {
  return iso === null ? '–' : dateTime.format(new Date(iso))
}

/** +0 ms, +840 ms, +1.2 s, +3 min 5 s: how long after the first event. */
export function formatOffset(ms: number): string {
  if (ms < 1000) return `+${Math.round(ms)} ms`
  if (ms < 60_000) return `+${(ms / 1000).toFixed(1)} s`
  return `+${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`
}

/** The status a person reads: the broker's snake_case word, spaced (dead_letter: dead letter). */
export function statusText(status: string): string {
  return status.replace('_', ' ')
}

/** A consumer group as a person reads it: the queue-mode group `__QUEUE_MODE__` is "queue mode". */
export function groupText(group: string | null): string {
  if (group === null) return '–'
  return group === '__QUEUE_MODE__' ? 'queue mode' : group
}
