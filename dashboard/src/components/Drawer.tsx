/**
 * A panel over the right side of the page (the whole width on a phone) for one item of a list, opened by a
 * link whose URL names the item. Its heading takes the focus when it opens; Escape or "Close" goes back to
 * the list's URL.
 */
import { useEffect, useRef, type ReactNode } from 'react'
import { navigate } from '../router'
import { Link } from './Link'

export function Drawer(props: { title: string; closeHref: string; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
  }, [props.title])
  return (
    <aside
      className="drawer"
      aria-labelledby="drawer-title"
      onKeyDown={(event) => {
        // Escape inside a confirmation closes the confirmation only.
        if (event.key !== 'Escape' || (event.target as Element).closest('dialog') !== null) return
        navigate(props.closeHref)
      }}
    >
      <div className="drawer-head">
        <h2 id="drawer-title" ref={heading} tabIndex={-1}>
          {props.title}
        </h2>
        <Link href={props.closeHref} className="button-link">
          Close
        </Link>
      </div>
      {props.children}
    </aside>
  )
}
