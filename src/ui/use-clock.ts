/** The time, ticking every `periodMs`, so ages ("updated 3s ago") move while nothing else changes. */
import { useEffect, useState } from 'react'

/** Epoch ms, refreshed every `periodMs`. */
export function useClock(periodMs: number): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), periodMs)
    return () => clearInterval(timer)
  }, [periodMs])
  return now
}
