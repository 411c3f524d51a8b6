import { Flags } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { QUEUE_COLUMNS, type QueueRow } from '../../cli/queues.js'
import type { QueueListAnswer } from '../../wire/index.js'

export default class QueueList extends HttpCommand {
  static override summary = 'List queues with their partition and message counts'
  static override description =
    'GET /api/v1/resources/queues, newest first; --limit and --offset page it, as in the Go queenctl. -o wide adds namespace, task and creation time; -o json prints the rows.'

  static override aliases = ['queue:ls']
  static override hiddenAliases = ['q:list', 'q:ls', 'queues']

  static override examples = [
    '<%= config.bin %> queue list',
    '<%= config.bin %> q ls --namespace billing --output wide',
  ]

  static override flags = {
    search: Flags.string({ description: 'only queues whose name contains this text' }),
    namespace: Flags.string({ description: 'only queues of this namespace' }),
    task: Flags.string({ description: 'only queues of this task' }),
    limit: Flags.integer({
      description: 'at most this many queues, newest first (the broker caps it at 10,000)',
      min: 1,
    }),
    offset: Flags.integer({ description: 'queues to skip, newest first', min: 0 }),
  }

  async run(): Promise<QueueRow[]> {
    const { flags } = await this.parse(QueueList)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<QueueListAnswer>('/api/v1/resources/queues', {
      query: {
        search: flags.search,
        namespace: flags.namespace,
        task: flags.task,
        limit: flags.limit,
        offset: flags.offset,
      },
    })
    out.list(answer.queues, QUEUE_COLUMNS)
    return answer.queues
  }
}
