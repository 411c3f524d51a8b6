/**
 * The filter fields of the inspection pages: each change replaces the URL (the filter is in it), which
 * refetches the list at once.
 */
import { useId } from 'react'
import { SINCE, type Since } from '../inspect-routes'

export function TextFilter(props: { label: string; value: string; onChange: (value: string) => void }) {
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="search"
        value={props.value}
        spellCheck={false}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </div>
  )
}

export function SelectFilter<T extends string>(props: {
  label: string
  value: T
  options: readonly { value: T; label: string }[]
  onChange: (value: T) => void
}) {
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        onChange={(event) => {
          const picked = props.options.find((option) => option.value === event.target.value)
          if (picked !== undefined) props.onChange(picked.value)
        }}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  )
}

/** How far back a list reaches ({@link SINCE}). */
export function SinceFilter(props: { label: string; value: Since; onChange: (value: Since) => void }) {
  return (
    <SelectFilter
      label={props.label}
      value={props.value}
      options={SINCE.map((since) => ({ value: since, label: since === 'all' ? 'any time' : since }))}
      onChange={props.onChange}
    />
  )
}
