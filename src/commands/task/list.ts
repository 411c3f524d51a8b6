import { HttpCommand } from '../../cli/http-command.js'
import { groupedColumns, groupedRows, type GroupedResourceRow } from '../../cli/resource-listing.js'
import type { TasksAnswer } from '../../wire/index.js'

export default class TaskList extends HttpCommand {
  static override summary = 'List the tasks with their queues, partitions and messages'
  static override description = 'Reads GET /api/v1/resources/tasks of the broker.'
  static override aliases = ['task:ls']
  static override hiddenAliases = ['tasks:list', 'tasks:ls']
  static override examples = [
    '<%= config.bin %> task list',
    '<%= config.bin %> task list --server https://queen.example.com --output json',
  ]

  async run(): Promise<GroupedResourceRow[]> {
    const { flags } = await this.parse(TaskList)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<TasksAnswer>('/api/v1/resources/tasks')
    const rows = groupedRows(answer.tasks, 'task')
    out.list(rows, groupedColumns('TASK'))
    return rows
  }
}
