/** An <a> that navigates with the History API (a plain click) and behaves as a link otherwise (new tab, copy). */
import type { AnchorHTMLAttributes, MouseEvent } from 'react'
import { navigate } from '../router'

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    if (event.defaultPrevented || event.button !== 0) return
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(href)
  }
  return <a href={href} onClick={follow} {...rest} />
}
