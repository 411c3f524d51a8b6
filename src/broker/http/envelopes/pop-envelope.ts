/**
 * The pop answer on the wire (docs/http-api.md, "Popped message" and "Pop answer"): the JSON bytes of each {@link
 * PopOutcome}, one of the shapes of src/wire/pop.ts. The messages answer is written directly as text for speed; the pop
 * route's test checks its keys against those types.
 */
import { Readable } from 'node:stream'
import type { PopOutcome, PoppedMessage, PopRequest } from '../../engine/pop-engine.js'
import type { PopEmptyAnswer, PopRefusedAnswer, PopWindowBufferAnswer } from '../../../wire/index.js'

/**
 * A pop outcome's JSON body: its bytes, or for an answer of more than {@link MESSAGES_PER_PIECE} messages a stream that
 * writes them piece by piece; `undefined` for a 204 (pop-maintenance).
 */
export function popEnvelope(request: PopRequest, outcome: PopOutcome): Buffer | Readable | undefined {
  switch (outcome.kind) {
    case 'paused':
      return undefined
    case 'refused':
      return jsonBytes({ success: false, error: outcome.error, messages: [] } satisfies PopRefusedAnswer)
    case 'empty':
      return jsonBytes({
        success: true,
        queue: request.queue,
        partition: request.partition ?? '',
        partitionId: null,
        leaseId: null,
        consumerGroup: request.group,
        messages: [],
      } satisfies PopEmptyAnswer)
    case 'windowBuffer':
      return jsonBytes({
        success: true,
        queue: request.queue,
        partition: outcome.partition,
        partitionId: outcome.partitionId,
        leaseId: '',
        consumerGroup: request.group,
        messages: [],
        windowBufferActive: true,
      } satisfies PopWindowBufferAnswer)
    case 'messages': {
      const pieces = answerPieces(
        `{"success":true,"queue":${JSON.stringify(outcome.queue)},"partition":${JSON.stringify(outcome.partition)},` +
          `"partitionId":${JSON.stringify(outcome.partitionId)},"leaseId":${JSON.stringify(outcome.leaseId)},` +
          `"consumerGroup":${JSON.stringify(outcome.group)},"messages":[`,
        outcome.messages,
        outcome.leaseId,
        outcome.group,
        `],"partitionsClaimed":${outcome.partitionsClaimed}}`,
      )
      return outcome.messages.length <= MESSAGES_PER_PIECE ? pieces.next().value! : Readable.from(pieces)
    }
  }
}

const jsonBytes = (answer: object): Buffer => Buffer.from(JSON.stringify(answer))

/**
 * Messages whose JSON text becomes bytes together, each piece made as the socket takes the one before. A 5,000-message
 * answer made bytes at once was a string of megabytes in V8's large-object space and a buffer as large outside it,
 * both held until a full collection: four readers popping such batches raised the broker's peak by 5-8 MB
 * (bench/README.md, "Where the broker's memory goes (issue 39)"). Such an answer goes out in chunked encoding.
 */
const MESSAGES_PER_PIECE = 256

/**
 * A pop answer with its `messages[]` (docs/http-api.md, "Popped message"), as pieces of bytes, written directly: popped
 * payloads arrive as JSON text, and building an object per message only for JSON.stringify to walk it again was the
 * largest share of the broker's CPU in a drain after garbage collection. Ids, lease ids and timestamps come from PostgreSQL in
 * fixed formats that need no escaping; every other string goes through JSON.stringify. The fields that follow createdAt
 * are the same for every message of a partition, so they are written once per partition (every piece appended is a
 * string the young generation must hold until its piece becomes bytes).
 */
function* answerPieces(
  head: string,
  rows: PoppedMessage[],
  leaseId: string,
  group: string,
  end: string,
): Generator<Buffer, undefined> {
  const groupJson = JSON.stringify(group)
  // undefined before the first row, so its fields are always written.
  let partitionId: string | null | undefined
  let queue: string | undefined
  let tail = ''
  let text = head
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!
    if (row.partition_id !== partitionId || row.queue !== queue) {
      partitionId = row.partition_id
      queue = row.queue
      tail =
        `","partitionId":"${row.partition_id}","partition":${JSON.stringify(row.partition_name)},` +
        `"leaseId":"${leaseId}","consumerGroup":${groupJson},"queue":${JSON.stringify(queue)},"retryCount":`
    }
    const data = typeof row.payload === 'string' ? row.payload : (JSON.stringify(row.payload) ?? 'null')
    text +=
      (index === 0 ? '{"id":"' : ',{"id":"') +
      row.message_id +
      '","transactionId":' +
      JSON.stringify(row.transaction_id) +
      (row.trace_id === null ? ',"traceId":null,"data":' : `,"traceId":"${row.trace_id}","data":`) +
      data +
      ',"producerSub":' +
      JSON.stringify(row.producer_sub) +
      ',"createdAt":"' +
      row.created_at +
      tail +
      (row.retry_count ?? 0) +
      '}'
    if ((index + 1) % MESSAGES_PER_PIECE === 0 && index + 1 < rows.length) {
      yield Buffer.from(text)
      text = ''
    }
  }
  yield Buffer.from(text + end)
  return undefined
}
