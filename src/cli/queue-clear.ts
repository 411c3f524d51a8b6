/**
 * Clearing the messages of a queue or of one of its partitions (`queue clear`, `partition clear`; docs/cli.md,
 * "Destructive verbs"): `DELETE /api/v1/queues/:queue/clear`, behind the `--yes` rule, with a `--dry-run` that counts
 * what would go. Options, partitions and consumer groups stay.
 */
import { confirmByName } from './confirm.js'
import { EXIT, UserError } from './errors.js'
import type { HttpClient } from './http-client.js'
import type { Output } from './output.js'
import { queuePath, type QueueDetail } from './queues.js'
import type { QueueClearAnswer } from '../wire/index.js'

/** What to clear and how the command was asked. */
export interface ClearRequest {
  queue: string
  partition?: string
  yes: boolean
  dryRun: boolean
  /** A partition the queue does not have is an error (`partition clear`) rather than nothing to clear. */
  requirePartition?: boolean
  /** The command line to suggest when --yes is missing. */
  retry: string
}

/** What a dry run found. */
export interface ClearPreview {
  dryRun: true
  queue: string
  partition: string | null
  messages: number
}

/** Clears (or previews); the preview's `messages` is 0 when there is nothing to delete (the caller exits 4). */
export async function clearMessages(
  client: HttpClient,
  out: Output,
  request: ClearRequest,
): Promise<QueueClearAnswer | ClearPreview> {
  const where = request.partition
    ? `partition ${request.partition} of queue ${request.queue}`
    : `queue ${request.queue}`
  if (request.dryRun || request.requirePartition) {
    const messages = await countMessages(client, request)
    if (request.dryRun) {
      out.note(`would delete ${messages} message(s) of ${where}`)
      return { dryRun: true, queue: request.queue, partition: request.partition ?? null, messages }
    }
  }
  await confirmByName({
    yes: request.yes,
    name: request.partition ?? request.queue,
    question: `Delete every message of ${where}?`,
    action: `clear ${where}`,
    retry: request.retry,
  })
  const answer = await client.delete<QueueClearAnswer>(`/api/v1/queues/${encodeURIComponent(request.queue)}/clear`, {
    query: { partition: request.partition },
  })
  out.confirm(`cleared ${where}: ${answer.deletedMessages} message(s) deleted`)
  if (!out.tabular) out.detail({}, answer)
  return answer
}

/** The messages a clear would delete, from the queue's detail; an unknown partition is refused when required. */
async function countMessages(client: HttpClient, request: ClearRequest): Promise<number> {
  const queue = await client.get<QueueDetail>(queuePath(request.queue))
  const partitions = request.partition
    ? queue.partitions.filter((partition) => partition.name === request.partition)
    : queue.partitions
  if (request.requirePartition && partitions.length === 0) {
    throw new UserError(
      `queue ${JSON.stringify(request.queue)} has no partition ${JSON.stringify(request.partition)}`,
      { exitCode: EXIT.user, code: 'not_found', hint: `queenctl partition list ${request.queue} shows its partitions` },
    )
  }
  return partitions.reduce((sum, partition) => sum + partition.stats.total, 0)
}

/** Exit 4 after a dry run that found nothing to delete. */
export function isEmptyPreview(result: QueueClearAnswer | ClearPreview): boolean {
  return 'dryRun' in result && result.messages === 0
}
