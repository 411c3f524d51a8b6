/**
 * The lag threshold of the consumer-group pages, in seconds: typed freely, put in the URL (through
 * `onChange`) whenever the text is a whole number, so an emptied field does not snap back while typing.
 */
import { useState } from 'react'

export function LagThreshold({ threshold, onChange }: { threshold: number; onChange: (seconds: number) => void }) {
  const [text, setText] = useState(String(threshold))
  const [shown, setShown] = useState(threshold)
  // The URL changed elsewhere (back button, a link): show its threshold unless the text already says it.
  if (shown !== threshold) {
    setShown(threshold)
    if (text.trim() === '' || Number(text) !== threshold) setText(String(threshold))
  }
  return (
    <div className="filter">
      <label htmlFor="lag-threshold">Lag threshold (s)</label>
      <input
        id="lag-threshold"
        className="narrow"
        type="number"
        inputMode="numeric"
        min={0}
        step={1}
        value={text}
        onChange={(event) => {
          setText(event.target.value)
          if (/^\d{1,9}$/.test(event.target.value)) onChange(Number(event.target.value))
        }}
      />
    </div>
  )
}
