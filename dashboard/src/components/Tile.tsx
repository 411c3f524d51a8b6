/** One labelled figure of a `<dl className="tiles">`. */
export function Tile({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="tile">
      <dt>{label}</dt>
      <dd>{value}</dd>
      {note !== undefined && <dd className="tile-note">{note}</dd>}
    </div>
  )
}
