import { Flags } from '@oclif/core'
import { confirmAction } from '../../cli/confirm.js'
import { messagePath } from '../../cli/dead-letters.js'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { messageArgs, type MessageDetail } from '../../cli/messages.js'
import type { MessageDlqAnswer } from '../../wire/index.js'

export default class MessagesDlq extends HttpCommand {
  static override summary = 'Move one message to the DLQ for a consumer group'
  static override description =
    'POST /api/v1/messages/:partitionId/:transactionId/dlq: the message is settled for the group (queue mode without --cg) and an in-flight lease on it can no longer ack it. Already consumed by the group: exit 1. Needs --yes when stdin is not a terminal; --dry-run shows the message and changes nothing (exit 4 when it does not exist).'

  static override hiddenAliases = ['msg:dlq', 'msgs:dlq']
  static override examples = [
    '<%= config.bin %> messages dlq 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --cg billing --error "bad address" --yes',
    '<%= config.bin %> messages dlq 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --dry-run',
  ]

  static override args = messageArgs
  static override flags = {
    cg: Flags.string({ description: 'consumer group (default: queue mode)' }),
    error: Flags.string({ description: 'the error recorded with the DLQ entry' }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(MessagesDlq)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const path = messagePath(args.partitionId, args.transactionId)
    const group = flags.cg ?? 'queue mode'
    if (flags['dry-run']) {
      const message = await client.get<MessageDetail>(path).catch((error: { status?: number }) => {
        if (error.status === 404) return undefined
        throw error
      })
      if (!message) {
        out.note(`message ${args.transactionId} does not exist: nothing to move`)
        this.exit(EXIT.noop)
      }
      out.note(
        `would move message ${args.transactionId} of ${message.queue}/${message.partition} to the DLQ for ${group}`,
      )
      const result = {
        dryRun: true,
        transactionId: message.transactionId,
        queue: message.queue,
        consumerGroup: flags.cg ?? null,
      }
      if (!out.tabular) out.detail({}, result)
      return result
    }
    await confirmAction({
      yes: flags.yes,
      question: `Move message ${args.transactionId} to the DLQ for ${group}?`,
      action: `move message ${args.transactionId} to the DLQ`,
      retry: `queenctl messages dlq ${args.partitionId} ${args.transactionId}${flags.cg ? ` --cg ${flags.cg}` : ''} --yes`,
    })
    const body: Record<string, string> = {}
    if (flags.cg !== undefined) body.consumerGroup = flags.cg
    if (flags.error !== undefined) body.error = flags.error
    const answer = await client.post<MessageDlqAnswer>(`${path}/dlq`, body)
    out.confirm(`moved message ${args.transactionId} to the DLQ for ${group}`)
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
