/**
 * Live data: fetches at once, then again `POLL_INTERVAL_MS` after each answer (never two requests of a view
 * in flight), while live updates are on. A new key (a filter or the token changed) fetches at once, paused or
 * not; pausing sends nothing more; leaving the view aborts the request in flight.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react'
import { authState, subscribeAuth } from './auth'

/** How often a view refreshes while live. */
export const POLL_INTERVAL_MS = 2000

let live = true
const listeners = new Set<() => void>()

/** Pauses or resumes live updates everywhere. */
export function setLive(next: boolean): void {
  live = next
  for (const listener of listeners) listener()
}

/** Whether live updates are on, re-rendering on change. */
export function useLive(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => live,
  )
}

/** What a view shows: the last good answer, the last error, and when the answer arrived. */
export interface PollState<T> {
  data: T | undefined
  error: Error | undefined
  updatedAt: Date | undefined
}

/**
 * Polls `fetcher` under `key`; `fetcher` is read when the key changes, so it must depend on nothing the key
 * does not name.
 */
export function usePoll<T>(
  key: string,
  fetcher: (signal: AbortSignal) => Promise<T>,
): PollState<T> & { reload(): void } {
  const isLive = useLive()
  const [state, setState] = useState<PollState<T> & { key: string }>({
    key,
    data: undefined,
    error: undefined,
    updatedAt: undefined,
  })
  const [nonce, setNonce] = useState(0)
  const authVersion = useSyncExternalStore(subscribeAuth, () => authState().version)
  const fetched = useRef<string | undefined>(undefined)

  useEffect(() => {
    // Pausing keeps what is shown: while paused, only a new key, a reload or a new token fetches (once).
    const signature = `${key}\n${nonce}\n${authVersion}`
    if (!isLive && fetched.current === signature) return
    fetched.current = signature
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = async () => {
      try {
        const data = await fetcher(controller.signal)
        if (controller.signal.aborted) return
        setState({ key, data, error: undefined, updatedAt: new Date() })
      } catch (error) {
        if (controller.signal.aborted) return
        setState((previous) => ({
          ...(previous.key === key ? previous : { data: undefined, updatedAt: undefined }),
          key,
          error: error as Error,
        }))
      }
      if (isLive) timer = setTimeout(() => void tick(), POLL_INTERVAL_MS)
    }
    void tick()
    return () => {
      controller.abort()
      if (timer !== undefined) clearTimeout(timer)
    }
    // The fetcher is taken as it was when the key last changed (see above).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, isLive, nonce, authVersion])

  // An answer for another key (the previous filter) is not shown as this one's.
  const current = state.key === key ? state : { data: undefined, error: undefined, updatedAt: undefined }
  return {
    data: current.data,
    error: current.error,
    updatedAt: current.updatedAt,
    reload: () => setNonce((n) => n + 1),
  }
}
