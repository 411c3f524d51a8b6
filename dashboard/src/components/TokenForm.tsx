/** The sign-in form shown when the broker answers 401: a bearer token, kept for this tab. */
import { useState, type FormEvent } from 'react'
import { signIn, useAuth } from '../auth'

export function TokenForm() {
  const auth = useAuth()
  const [token, setToken] = useState('')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const value = token.trim()
    if (value !== '') signIn(value)
  }
  return (
    <section className="card sign-in" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in</h2>
      <p>This broker requires a token (JWT). It is kept for this browser tab only.</p>
      {auth.error !== undefined && (
        <p className="error" role="alert">
          {auth.token === undefined ? auth.error : `The token was refused: ${auth.error}`}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="token">Bearer token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={token}
          onChange={(event) => setToken(event.target.value)}
          required
        />
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </section>
  )
}
