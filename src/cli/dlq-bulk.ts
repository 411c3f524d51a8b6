/**
 * The shared run of `dlq requeue` and `dlq drain` (docs/cli.md, "DLQ commands" and "Destructive verbs"): refuse without
 * --yes off a terminal before anything is sent, collect the matching rows (exit 4 when none), list them under
 * --dry-run, otherwise confirm, act on each and print `<verb>=N errors=M`.
 */
import { confirmAction } from './confirm.js'
import {
  collectDeadLetters,
  describeFilters,
  DLQ_COLUMNS,
  dlqQuery,
  filterArgs,
  runBulk,
  type BulkFailure,
  type DeadLetter,
  type DlqFilters,
} from './dead-letters.js'
import type { HttpClient } from './http-client.js'
import type { Output } from './output.js'

/** What a bulk DLQ command does. */
export interface DlqBulkAction<Item> {
  /** The command's verb, e.g. `requeue`. */
  verb: string
  /** The counter of the result, e.g. `requeued`. */
  counter: string
  /** The counter's name on the text line where the Go queenctl named it otherwise (`processed` for drain). */
  lineCounter?: string
  /** The question's object, e.g. `Requeue` → `Requeue 3 dead-lettered message(s) matching ...?`. */
  question: string
  /** The items to act on, from the matching rows. */
  items: (rows: DeadLetter[]) => Item[]
  act: (client: HttpClient, item: Item) => Promise<void>
  describe: (failure: BulkFailure) => string
}

/** The result printed under -o json. */
export type DlqBulkResult = { dryRun: true; rows: DeadLetter[] } | Record<string, unknown>

/** Runs the action; `exit` is the command's exit (for the no-op code 4). */
export async function runDlqBulk<Item extends { partitionId: string; transactionId: string; consumerGroup?: string }>(
  options: {
    out: Output
    client: () => Promise<HttpClient>
    filters: DlqFilters
    yes: boolean
    dryRun: boolean
    exit: (code: number) => never
  },
  action: DlqBulkAction<Item>,
): Promise<DlqBulkResult> {
  const { out, filters } = options
  dlqQuery(filters) // a bad --from/--to fails before anything is asked or sent
  const confirm = (count?: number) =>
    confirmAction({
      yes: options.yes,
      question: `${action.question} ${count ?? 'the'} dead-lettered message(s) matching ${describeFilters(filters)}?`,
      action: `${action.verb} dead-lettered messages`,
      retry: ['queenctl dlq', action.verb, filterArgs(filters), '--yes'].filter((part) => part !== '').join(' '),
    })
  if (!options.dryRun && process.stdin.isTTY !== true) await confirm()
  const client = await options.client()
  const rows = await collectDeadLetters(client, filters)
  const items = action.items(rows)
  if (items.length === 0) options.exit(4)
  if (options.dryRun) {
    out.note(`would ${action.verb} ${items.length} dead-lettered message(s)`)
    const chosen = new Set(items.map((item) => `${item.partitionId}/${item.transactionId}`))
    const shown = rows.filter((row) => chosen.has(`${row.partitionId}/${row.transactionId}`))
    out.list(shown, DLQ_COLUMNS)
    return { dryRun: true, rows: shown }
  }
  await confirm(items.length)
  const outcome = await runBulk(
    items,
    (item) => action.act(client, item),
    (failure) => out.warn(action.describe(failure)),
  )
  const result = { [action.counter]: outcome.done, errors: outcome.errors, failures: outcome.failures }
  if (out.tabular) out.write(`${action.lineCounter ?? action.counter}=${outcome.done} errors=${outcome.errors}\n`)
  else out.detail({}, result)
  // Partial failure: the exit code of the first failed row (404 → 1, 5xx → 2).
  if (outcome.failures[0]) process.exitCode = outcome.failures[0].exitCode
  return result
}
