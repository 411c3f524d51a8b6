/**
 * Trace events in time order, each with its time, its offset from the first event, its type, where it
 * happened (group, worker, and for a named trace the message) and its data.
 */
import type { ReactNode } from 'react'
import type { TraceEvent } from '../../../src/wire/index.js'
import { formatOffset, formatWhen, groupText } from '../inspect-format'
import { JsonView } from './JsonView'

export function TraceTimeline<T extends TraceEvent>(props: {
  events: readonly T[]
  /** Where the event's message is (a link), for events of several messages. */
  place?: (event: T) => ReactNode
  label: string
}) {
  const events = [...props.events].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
  const start = events[0] === undefined ? 0 : Date.parse(events[0].created_at)
  return (
    <ol className="timeline" aria-label={props.label}>
      {events.map((event) => (
        <li key={event.id} className="timeline-event">
          <div className="timeline-when">
            <time dateTime={event.created_at}>{formatWhen(event.created_at)}</time>{' '}
            <span className="muted">{formatOffset(Date.parse(event.created_at) - start)}</span>
          </div>
          <div className="timeline-what">
            <span className="event-type">{event.event_type}</span>
            {props.place?.(event)}
            {event.consumer_group !== null && <span className="muted"> · {groupText(event.consumer_group)}</span>}
            {event.worker_id !== null && <span className="muted"> worker {event.worker_id}</span>}
            {event.trace_names.length > 0 && <span className="muted"> · {event.trace_names.join(', ')}</span>}
          </div>
          <JsonView value={event.data} label={`Data of the ${event.event_type} event`} />
        </li>
      ))}
    </ol>
  )
}
