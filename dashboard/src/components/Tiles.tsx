/** Pieces the overview-like pages share: a labelled figure (a tile of a `dl.tiles`) and the time-window switch. */
import { WINDOWS, type TimeWindow } from '../router'
import { Link } from './Link'

/** One figure with its label, inside a `<dl className="tiles">`. */
export function Tile({ label, value }: { label: string; value: string }) {
  return (
    <div className="tile">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  )
}

/** The 1h / 6h / 24h switch: links (the window is in the URL), the current one marked. */
export function WindowNav({ current, hrefOf }: { current: TimeWindow; hrefOf: (window: TimeWindow) => string }) {
  return (
    <nav aria-label="Time window" className="segmented">
      {WINDOWS.map((option) => (
        <Link key={option} href={hrefOf(option)} aria-current={option === current ? 'true' : undefined}>
          {option}
        </Link>
      ))}
    </nav>
  )
}
