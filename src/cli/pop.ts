/**
 * One pop as `queenctl pop` and `tail` make it (docs/cli.md, "Data-plane commands", docs/http-api.md, "Pop from a
 * queue" and "Pop by namespace or task"): the route and query of the flags, the popped messages as the rows both
 * commands print, and the empty answers told apart from failures. The long-poll time is added to the HTTP timeout, and
 * the broker answers before `timeout + 1000` ms.
 */
import { EXIT, UserError } from './errors.js'
import { HttpRequestError, type HttpClient } from './http-client.js'
import { parseTime } from './times.js'
import type { PopAnswer, PopMessagesAnswer, PoppedMessage } from '../wire/index.js'

/** What to pop from: a queue (optionally one partition), or the queues of a namespace and/or task. */
export interface PopTarget {
  queue?: string
  partition?: string
  namespace?: string
  task?: string
}

/** One pop request. */
export interface PopOptions extends PopTarget {
  /** Consumer group; queue mode when absent. */
  consumerGroup?: string
  batch: number
  /** Partitions one wildcard pop may claim. */
  maxPartitions?: number
  autoAck?: boolean
  /** Long-poll for up to `waitMs`; 0 answers at once. */
  waitMs: number
  /** `all` or `new` (first contact of a named group). */
  fromMode?: string
  /** A time expression of docs/cli.md, "Times and seek targets" (first contact of a named group). */
  since?: string
  /** Aborts a parked long-poll (Ctrl-C in `tail`). */
  signal?: AbortSignal
}

/** A popped message as `pop` and `tail` print it (one NDJSON line each). */
export interface PoppedRow {
  queue: string
  partition: string
  partitionId: string
  transactionId: string
  leaseId: string
  consumerGroup: string
  createdAt: string
  retryCount: number
  traceId: string | null
  producerSub: string | null
  data: unknown
}

/** The outcome of one pop. */
export type PopResult = { kind: 'messages'; rows: PoppedRow[] } | { kind: 'empty'; note?: string }

/** Checks what the CLI can check before sending: a queue or a namespace/task, not both. */
export function checkPopTarget(target: PopTarget): void {
  const queueless = target.namespace !== undefined || target.task !== undefined
  if (target.queue === undefined && !queueless) {
    throw new UserError('pop needs a queue argument, or --namespace/--task for a queueless pop', {
      hint: 'queenctl pop QUEUE, or queenctl pop --namespace NS',
    })
  }
  if (target.queue !== undefined && queueless) {
    throw new UserError('a queue argument and --namespace/--task exclude each other', {
      hint: 'pop from one queue, or from every queue of a namespace or task',
    })
  }
  if (queueless && target.partition !== undefined) {
    throw new UserError('--partition needs a queue argument, not --namespace/--task')
  }
}

/**
 * `pop --conflation` and `tail --conflation` (the Go queenctl's last-value delivery): the Go CLI's own checks first
 * (a named consumer group, no auto-ack), then a refusal, before anything is popped, since this broker has no
 * last-value delivery (docs/cli.md, "Compatibility with the Go queenctl").
 */
export function refuseConflation(command: 'pop' | 'tail', options: { cgGiven: boolean; autoAck: boolean }): never {
  if (!options.cgGiven) {
    throw new UserError(`${command} --conflation requires --cg: last-value delivery is a consumer group's policy`)
  }
  if (options.autoAck) {
    throw new UserError(`${command} --conflation and --auto-ack exclude each other`)
  }
  throw new UserError(
    `${command} --conflation: this broker does not offer last-value delivery (conflation), so nothing was popped`,
    { hint: `${command} without --conflation delivers every message of the partition in order` },
  )
}

function popPath(target: PopTarget): string {
  if (target.queue === undefined) return '/api/v1/pop'
  const queue = `/api/v1/pop/queue/${encodeURIComponent(target.queue)}`
  return target.partition === undefined ? queue : `${queue}/partition/${encodeURIComponent(target.partition)}`
}

/** The query of a pop; `--since` is parsed here, so a bad time fails before anything is sent. */
export function popQuery(options: PopOptions): Record<string, string | number | boolean | undefined> {
  return {
    consumerGroup: options.consumerGroup,
    batch: options.batch,
    wait: options.waitMs > 0,
    timeout: options.waitMs > 0 ? options.waitMs : undefined,
    partitions: options.partition === undefined ? options.maxPartitions : undefined,
    autoAck: options.autoAck ? true : undefined,
    subscriptionMode: options.fromMode,
    subscriptionFrom: options.since === undefined ? undefined : parseTime(options.since, { flag: '--since' }),
    namespace: options.namespace,
    task: options.task,
  }
}

function toRow(message: PoppedMessage, envelope: PopMessagesAnswer): PoppedRow {
  return {
    queue: message.queue ?? envelope.queue ?? '',
    partition: message.partition ?? envelope.partition ?? '',
    partitionId: message.partitionId ?? '',
    transactionId: message.transactionId ?? '',
    leaseId: message.leaseId ?? envelope.leaseId ?? '',
    consumerGroup: message.consumerGroup ?? envelope.consumerGroup ?? '',
    createdAt: message.createdAt ?? '',
    retryCount: message.retryCount ?? 0,
    traceId: message.traceId ?? null,
    producerSub: message.producerSub ?? null,
    data: message.data ?? null,
  }
}

/**
 * The empty forms of docs/http-api.md, "Pop answer": nothing eligible (silent), a partition leased by another consumer
 * (a note), a partition that does not exist (a user error: it is never created by a pop).
 */
function emptyOrFailure(envelope: PopAnswer, target: PopTarget): PopResult {
  const error: string | null | undefined = 'error' in envelope ? envelope.error : undefined
  switch (error) {
    case undefined:
    case null:
    case 'no_available_partition':
      return { kind: 'empty' }
    case 'lease_held':
      return { kind: 'empty', note: `partition ${target.partition ?? ''} is leased by another consumer of this group` }
    case 'partition_not_found':
      throw new UserError(`partition ${target.partition ?? ''} of queue ${target.queue ?? ''} does not exist`, {
        exitCode: EXIT.user,
        hint: `queenctl partition list ${target.queue ?? 'QUEUE'} lists its partitions`,
      })
    default:
      throw new UserError(error, { exitCode: EXIT.server, code: 'pop_failed' })
  }
}

/** Sends one pop. A 204 (pop-maintenance) is empty; `success:false` answers are sorted by emptyOrFailure. */
export async function popOnce(client: HttpClient, options: PopOptions): Promise<PopResult> {
  let envelope: PopAnswer | undefined
  try {
    envelope = await client.get<PopAnswer | undefined>(popPath(options), {
      query: popQuery(options),
      // The broker answers a long-poll before timeout + 1000 ms; the HTTP timeout covers the request itself.
      timeoutMs: client.options.timeoutMs + options.waitMs,
      signal: options.signal,
    })
  } catch (error) {
    if (error instanceof HttpRequestError && error.status === 200 && typeof error.body === 'object') {
      return emptyOrFailure(error.body as PopAnswer, options)
    }
    throw error
  }
  if (envelope === undefined || typeof envelope !== 'object') return { kind: 'empty' }
  const messages = Array.isArray(envelope.messages) ? envelope.messages : []
  if (messages.length === 0) return emptyOrFailure(envelope, options)
  // Only a messages answer carries messages.
  const answer = envelope as PopMessagesAnswer
  return { kind: 'messages', rows: messages.map((message) => toRow(message, answer)) }
}

/**
 * The format of `pop`: one JSON array under `-o json`/`--json`, NDJSON for every other `-o` and by default
 * (docs/cli.md, "Output formats": pop and tail always stream NDJSON), whether or not stdout is a terminal.
 */
export function popFormat(flags: { output?: string; json?: boolean }): 'json' | 'ndjson' {
  if (flags.json && flags.output !== undefined && flags.output !== 'json') {
    throw new UserError(`--json and --output ${flags.output} ask for different formats`, {
      hint: 'use one of them: --json is the same as --output json',
    })
  }
  return flags.json || flags.output === 'json' ? 'json' : 'ndjson'
}

/** The rows as NDJSON lines. */
export function ndjsonRows(rows: readonly PoppedRow[]): string {
  let text = ''
  for (const row of rows) text += `${JSON.stringify(row)}\n`
  return text
}
