/**
 * A horizontal bar chart as a list: each row its label, its value in words and a bar proportional to the
 * largest value, so the figures are read by everyone and the bars seen at a glance.
 */
export function BarList({
  items,
  format,
  label,
}: {
  items: { label: string; value: number; color: string }[]
  format: (value: number) => string
  label: string
}) {
  const max = Math.max(1, ...items.map((item) => item.value))
  return (
    <ul className="bar-list" aria-label={label}>
      {items.map((item) => (
        <li key={item.label}>
          <span className="bar-label">{item.label}</span>
          <span className="bar-track" aria-hidden="true">
            <span
              className="bar-fill"
              style={{ width: `${(100 * item.value) / max}%`, background: `var(${item.color})` }}
            />
          </span>
          <span className="bar-value">{format(item.value)}</span>
        </li>
      ))}
    </ul>
  )
}
