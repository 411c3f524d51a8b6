/**
 * The `--yes` rule of destructive verbs (docs/cli.md, "Destructive verbs"): with `--yes` go ahead; on a terminal ask on
 * stderr; without a terminal refuse with exit 1 and a message naming `--yes`.
 */
import { createInterface } from 'node:readline/promises'
import { EXIT, UserError } from './errors.js'

/** What to ask and how to name the refusal. */
export interface ConfirmOptions {
  /** `--yes` was given. */
  yes: boolean
  /** The question, e.g. `Turn push maintenance on?`. */
  question: string
  /** The action in the refusal message, e.g. `turn push maintenance on`. */
  action: string
  /** The command line to suggest, e.g. `queenctl maintenance on --yes`. */
  retry: string
  /**
   * Go ahead without a terminal instead of refusing: the seeks (`replay`, `cg seek`, `partition seek`), which the
   * Go queenctl runs in scripts without asking (docs/cli.md, "Compatibility with the Go queenctl").
   */
  proceedOffTerminal?: boolean
}

/** Resolves when the user confirmed (or `--yes` was given); throws a UserError (exit 1) otherwise. */
export async function confirmAction(options: ConfirmOptions): Promise<void> {
  if (options.yes) return
  if (process.stdin.isTTY !== true) {
    if (options.proceedOffTerminal) return
    throw new UserError(`refusing to ${options.action} without --yes (stdin is not a terminal)`, {
      exitCode: EXIT.user,
      code: 'confirmation_required',
      hint: `run ${options.retry}`,
    })
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const answer = (await prompt.question(`${options.question} [y/N] `)).trim().toLowerCase()
    if (answer === 'y' || answer === 'yes') return
  } finally {
    prompt.close()
  }
  throw new UserError(`not confirmed: did not ${options.action}`, { exitCode: EXIT.user, code: 'not_confirmed' })
}

/**
 * The confirmation of a delete (docs/cli.md, "Destructive verbs"): like confirmAction, but on a terminal the user types
 * the resource's name instead of y.
 */
export async function confirmByName(options: ConfirmOptions & { name: string }): Promise<void> {
  if (options.yes) return
  if (process.stdin.isTTY !== true) return confirmAction(options)
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const answer = (await prompt.question(`${options.question} Type ${options.name} to confirm: `)).trim()
    if (answer === options.name) return
  } finally {
    prompt.close()
  }
  throw new UserError(`not confirmed: did not ${options.action}`, { exitCode: EXIT.user, code: 'not_confirmed' })
}
