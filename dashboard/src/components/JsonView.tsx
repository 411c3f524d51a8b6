/** A JSON value, indented, in a box that scrolls on its own (focusable, so the keyboard can scroll it). */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" tabIndex={0} role="region" aria-label={label}>
      {value === undefined ? 'undefined' : JSON.stringify(value, null, 2)}
    </pre>
  )
}
