/**
 * Where this broker's hints for the other replicas go: the PostgreSQL channel and, when configured, the
 * mesh. Every wake is stamped with a running mark first, so a replica hearing it by both paths re-checks
 * once (hint-effects.ts).
 */
import type { Hint } from '../db/hint-channel.js'

/** A path hints travel by. */
export interface HintSink {
  publish(hint: Hint): void
}

/** Fans hints out to every path. */
export class HintOutbox implements HintSink {
  private readonly sinks: HintSink[] = []
  private mark = 0

  constructor(sinks: (HintSink | undefined)[] = []) {
    for (const sink of sinks) if (sink) this.sinks.push(sink)
  }

  /** Adds a path (the mesh joins after the engines are built). */
  addSink(sink: HintSink): void {
    this.sinks.push(sink)
  }

  /** Publishes on every path; wakes carry a fresh mark. */
  publish(hint: Hint): void {
    if (this.sinks.length === 0) return
    const stamped: Hint =
      hint.type === 'POP_WAKE' ? { ...hint, wakes: hint.wakes.map((wake) => ({ ...wake, mark: ++this.mark })) } : hint
    for (const sink of this.sinks) sink.publish(stamped)
  }
}
