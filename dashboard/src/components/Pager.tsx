/** Previous and next links of a paged list; `hasNext` from the answer (a full page, or the total). */
import { Link } from './Link'

export function Pager(props: { page: number; hasNext: boolean; hrefOfPage: (page: number) => string }) {
  if (props.page === 1 && !props.hasNext) return null
  return (
    <nav className="pager" aria-label="Pages">
      {props.page > 1 && <Link href={props.hrefOfPage(props.page - 1)}>← Previous page</Link>}
      <span>Page {props.page}</span>
      {props.hasNext && <Link href={props.hrefOfPage(props.page + 1)}>Next page →</Link>}
    </nav>
  )
}
