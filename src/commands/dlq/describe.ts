import { Args } from '@oclif/core'
import { collectDeadLetters, messagePath } from '../../cli/dead-letters.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { HttpCommand } from '../../cli/http-command.js'
import type { MessageDetailAnswer } from '../../wire/index.js'

/** The DLQ view of one message: its entries per group and, while it exists, its state. */
type DeadLetterDetail = {
  transactionId: string
  partitionId: string
  queue: string
  partition: string
  /** null when retention already deleted the message and only the DLQ copy remains. */
  messageStatus: string | null
  createdAt: string
  deadLetters: { consumerGroup: string; error: string | null; retries: number; failedAt: string }[]
  data: unknown
}

export default class DlqDescribe extends HttpCommand {
  static override summary = 'Show the dead-letter entries of one message'
  static override description =
    'The DLQ entries of the message (group, error, retries, failed at) with its payload, read from GET /api/v1/dlq and GET /api/v1/messages/:partitionId/:transactionId. Exit 1 when the message is not in the DLQ.'

  static override aliases = ['dlq:get', 'dlq:show']
  static override examples = [
    '<%= config.bin %> dlq describe 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042',
    '<%= config.bin %> dlq describe 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --output json',
  ]

  static override args = {
    partitionId: Args.string({
      description: 'partition id (the PARTITION ID column of dlq list -o wide)',
      required: true,
    }),
    transactionId: Args.string({ description: 'transaction id (the TX column)', required: true }),
  }

  async run(): Promise<DeadLetterDetail> {
    const { args, flags } = await this.parse(DlqDescribe)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const message = await client
      .get<MessageDetailAnswer>(messagePath(args.partitionId, args.transactionId))
      .catch((error: { status?: number }) => {
        if (error.status === 404) return undefined
        throw error
      })
    // The DLQ route has no transaction filter: narrow by queue when the message still exists.
    const rows = (await collectDeadLetters(client, { queue: message?.queue })).filter(
      (row) => row.partitionId === args.partitionId.toLowerCase() && row.transactionId === args.transactionId,
    )
    const first = rows[0]
    if (!first) {
      throw new UserError(
        `message ${args.transactionId} of partition ${args.partitionId} is not in the dead-letter queue`,
        {
          exitCode: EXIT.user,
          code: 'not_found',
          hint: message ? `its status is ${message.status}` : 'find it with queenctl dlq list',
        },
      )
    }
    const detail: DeadLetterDetail = {
      transactionId: first.transactionId,
      partitionId: first.partitionId,
      queue: first.queue,
      partition: first.partition,
      messageStatus: message?.status ?? null,
      createdAt: first.createdAt,
      deadLetters: rows.map((row) => ({
        consumerGroup: row.consumerGroup,
        error: row.errorMessage,
        retries: row.retryCount,
        failedAt: row.failedAt,
      })),
      data: first.data,
    }
    out.detail(detail, detail)
    return detail
  }
}
