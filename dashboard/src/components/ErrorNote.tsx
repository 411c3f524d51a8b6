/** A view's last failed request, in words (a 401 also brings the sign-in form). */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (error === undefined) return null
  return (
    <p className="error" role="alert">
      {error.message}
    </p>
  )
}
