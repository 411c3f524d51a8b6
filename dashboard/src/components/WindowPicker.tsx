/** The 1h/6h/24h switch of a page: links, so the window is in the URL and the back button returns to it. */
import { WINDOWS, type TimeWindow } from '../router'
import { Link } from './Link'

export function WindowPicker({ current, hrefFor }: { current: TimeWindow; hrefFor: (span: TimeWindow) => string }) {
  return (
    <nav aria-label="Time window" className="segmented">
      {WINDOWS.map((option) => (
        <Link key={option} href={hrefFor(option)} aria-current={option === current ? 'true' : undefined}>
          {option}
        </Link>
      ))}
    </nav>
  )
}
