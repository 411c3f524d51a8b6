/**
 * `queenctl tx` (docs/cli.md, "Data-plane commands", docs/http-api.md, "Transaction"): a transaction document read from
 * a file or stdin and passed to the broker unchanged (the broker validates `operations` and `requiredLeases`). Never
 * retried: a transaction that took effect must not be sent twice on a lost answer.
 */
import { readFile } from 'node:fs/promises'
import { text } from 'node:stream/consumers'
import { UserError } from './errors.js'
import type { HttpClient } from './http-client.js'
import type { TransactionAnswer } from '../wire/index.js'

/** A transaction's answer (src/wire/transaction.ts). */
export type TransactionResult = TransactionAnswer

/** Reads `-f FILE` (or stdin for `-`) as one JSON object. */
export async function readTransaction(file: string, stdin: NodeJS.ReadableStream): Promise<Record<string, unknown>> {
  const name = file === '-' ? 'stdin' : file
  const content =
    file === '-'
      ? await text(stdin)
      : await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          const reason = error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? error.message})`
          throw new UserError(`file ${file} ${reason}`, { hint: 'pass a JSON file to -f, or - for stdin' })
        })
  if (content.trim() === '') throw new UserError(`${name} is empty`, { hint: 'a transaction is {"operations": [...]}' })
  let document: unknown
  try {
    document = JSON.parse(content) as unknown
  } catch (error) {
    throw new UserError(`${name} is not valid JSON (${(error as Error).message})`, { code: 'bad_input' })
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new UserError(`${name} is not a JSON object`, {
      hint: 'a transaction is {"operations": [...], "requiredLeases": [...]}',
    })
  }
  return document as Record<string, unknown>
}

/** `POST /api/v1/transaction`; a failed transaction is a UserError (exit 2) with the broker's message. */
export function commitTransaction(client: HttpClient, document: Record<string, unknown>): Promise<TransactionResult> {
  return client.post<TransactionResult>('/api/v1/transaction', document, { retry: false })
}
