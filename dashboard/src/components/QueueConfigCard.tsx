/**
 * A queue's configuration: its tags and options as the broker holds them, and (write role) an edit that is
 * merge-safe like `queenctl queue configure`: "Review changes" reads the stored configuration again, lays
 * the touched fields over it and shows the diff; "Save" reads it once more, refuses if it changed meanwhile
 * (someone else saved), and posts the merged set. The broker's refusal (a bad value) is shown in the dialog.
 */
import { useState } from 'react'
import type { ConfigureAnswer, QueueDetailAnswer } from '../../../src/wire/index.js'
import { apiGet, apiPost } from '../api'
import {
  OPTION_LABELS,
  optionOrder,
  planConfigure,
  sameConfig,
  showValue,
  TAGS,
  type ConfigurePlan,
  type Edits,
  type StoredConfig,
} from '../queue-options'
import { ConfirmDialog } from './ConfirmDialog'

function labelOf(option: string): string {
  return OPTION_LABELS[option]?.label ?? (option === 'namespace' ? 'Namespace' : option === 'task' ? 'Task' : option)
}

async function readStored(name: string): Promise<StoredConfig> {
  const answer = await apiGet<QueueDetailAnswer>(`/api/v1/resources/queues/${encodeURIComponent(name)}`, 'read')
  return { namespace: answer.namespace, task: answer.task, options: answer.options }
}

export function QueueConfigCard(props: { name: string; stored: StoredConfig; canEdit: boolean; onSaved: () => void }) {
  const [editing, setEditing] = useState(false)
  const [edits, setEdits] = useState<Edits>({})
  const [review, setReview] = useState<{ plan: ConfigurePlan; base: StoredConfig } | undefined>()
  const [message, setMessage] = useState<string | undefined>()
  const [failure, setFailure] = useState<string | undefined>()
  const fields = [...TAGS, ...optionOrder(props.stored.options)]
  const current = (key: string): unknown =>
    key === 'namespace' ? props.stored.namespace : key === 'task' ? props.stored.task : props.stored.options[key]

  const startReview = async () => {
    setFailure(undefined)
    setMessage(undefined)
    try {
      const base = await readStored(props.name)
      const plan = planConfigure(props.name, base, edits)
      if (plan.changes.length === 0) setMessage('Nothing to save: the edit changes no option.')
      else setReview({ plan, base })
    } catch (error) {
      setFailure((error as Error).message)
    }
  }

  const save = async () => {
    if (review === undefined) return
    const now = await readStored(props.name)
    if (!sameConfig(now, review.base)) {
      throw new Error('The configuration changed on the broker since this review: cancel and review again.')
    }
    await apiPost<ConfigureAnswer>('/api/v1/configure', 'write', review.plan.body)
    setMessage(`Saved: ${review.plan.changes.map((change) => labelOf(change.option)).join(', ')}.`)
    setEdits({})
    setEditing(false)
    props.onSaved()
  }

  return (
    <section aria-labelledby="config-title" className="card">
      <div className="card-title">
        <h2 id="config-title">Configuration</h2>
        {props.canEdit && !editing && (
          <button
            type="button"
            onClick={() => {
              setMessage(undefined)
              setEditing(true)
            }}
          >
            Edit configuration
          </button>
        )}
      </div>
      {message !== undefined && (
        <p className="done" role="status">
          {message}
        </p>
      )}
      {failure !== undefined && (
        <p className="error" role="alert">
          {failure}
        </p>
      )}
      {editing ? (
        <form
          className="config-form"
          onSubmit={(event) => {
            event.preventDefault()
            void startReview()
          }}
        >
          {fields.map((key) => (
            <ConfigField
              key={key}
              option={key}
              value={key in edits ? edits[key]! : current(key)}
              touched={key in edits}
              onChange={(value) => setEdits((previous) => ({ ...previous, [key]: value }))}
            />
          ))}
          <div className="dialog-actions">
            <button
              type="button"
              onClick={() => {
                setEdits({})
                setEditing(false)
                setFailure(undefined)
              }}
            >
              Cancel edit
            </button>
            <button type="submit" className="primary">
              Review changes
            </button>
          </div>
        </form>
      ) : (
        <dl className="config-list">
          {fields.map((key) => (
            <div key={key}>
              <dt>{labelOf(key)}</dt>
              <dd>{showValue(key, current(key))}</dd>
            </div>
          ))}
        </dl>
      )}
      <ConfirmDialog
        open={review !== undefined}
        title={`Save the configuration of ${props.name}?`}
        body="These options change; every other option keeps its stored value."
        confirmLabel="Save"
        onConfirm={save}
        onClose={() => setReview(undefined)}
      >
        {review !== undefined && <Diff plan={review.plan} />}
      </ConfirmDialog>
    </section>
  )
}

function ConfigField(props: {
  option: string
  value: unknown
  touched: boolean
  onChange: (value: string | boolean) => void
}) {
  const id = `option-${props.option}`
  const unit = OPTION_LABELS[props.option]?.unit
  const label = `${labelOf(props.option)}${unit === undefined ? '' : ` (${unit})`}`
  if (typeof props.value === 'boolean') {
    return (
      <div className="config-field check">
        <input
          id={id}
          type="checkbox"
          checked={props.value}
          onChange={(event) => props.onChange(event.target.checked)}
        />
        <label htmlFor={id}>{label}</label>
      </div>
    )
  }
  const numeric = !(TAGS as readonly string[]).includes(props.option)
  return (
    <div className="config-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        inputMode={numeric ? 'numeric' : 'text'}
        spellCheck={false}
        value={
          typeof props.value === 'string' ? props.value : typeof props.value === 'number' ? String(props.value) : ''
        }
        className={props.touched ? 'touched' : undefined}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </div>
  )
}

function Diff({ plan }: { plan: ConfigurePlan }) {
  return (
    <>
      <table className="data diff">
        <caption className="sr-only">Changes</caption>
        <thead>
          <tr>
            <th scope="col">Option</th>
            <th scope="col">Now</th>
            <th scope="col">After saving</th>
          </tr>
        </thead>
        <tbody>
          {plan.changes.map((change) => (
            <tr key={change.option}>
              <th scope="row">{labelOf(change.option)}</th>
              <td>{showValue(change.option, change.before)}</td>
              <td>{showValue(change.option, change.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {plan.notes.map((note) => (
        <p key={note} className="note">
          {note}
        </p>
      ))}
    </>
  )
}
