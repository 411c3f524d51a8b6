/**
 * A modal confirmation (<dialog>, so focus stays inside and Escape cancels). Opens when `open` is set; the
 * confirm button runs `onConfirm`, whose error is shown in the dialog.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react'

export function ConfirmDialog(props: {
  open: boolean
  title: string
  body: string
  confirmLabel: string
  onConfirm: () => Promise<void>
  onClose: () => void
  /** More than a sentence to show before confirming (a diff). */
  children?: ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  // Unique per dialog: a page may hold its own dialogs beside the header's.
  const titleId = useId()

  useEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    if (props.open && !dialog.open) {
      setError(undefined)
      dialog.showModal()
    }
    if (!props.open && dialog.open) dialog.close()
  }, [props.open])

  const confirm = async () => {
    setBusy(true)
    try {
      await props.onConfirm()
      props.onClose()
    } catch (failure) {
      setError((failure as Error).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      <p>{props.body}</p>
      {props.children}
      {error !== undefined && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={busy} onClick={() => void confirm()}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
