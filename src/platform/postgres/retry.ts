import { classifyPgError } from './pg-errors.js'

/**
 * Attempts for a statement that failed with a deadlock or serialization failure (docs/operations.md, "When a push is
 * spooled").
 */
export const RETRYABLE_ATTEMPTS = 3

/** Runs `work`, retrying it in place on deadlocks and serialization failures (never spooled). */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = RETRYABLE_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      if (attempt >= attempts || classifyPgError(error) !== 'retryable') throw error
    }
  }
}
