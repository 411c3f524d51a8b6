import { HttpCommand } from '../../cli/http-command.js'
import { groupedColumns, groupedRows, type GroupedResourceRow } from '../../cli/resource-listing.js'
import type { NamespacesAnswer } from '../../wire/index.js'

export default class NamespaceList extends HttpCommand {
  static override summary = 'List the namespaces with their queues, partitions and messages'
  static override description = 'Reads GET /api/v1/resources/namespaces of the broker.'
  static override aliases = ['namespace:ls']
  static override hiddenAliases = ['ns:list', 'ns:ls', 'namespaces:list', 'namespaces:ls']
  static override examples = [
    '<%= config.bin %> namespace list',
    '<%= config.bin %> namespace list --server https://queen.example.com --output json',
  ]

  async run(): Promise<GroupedResourceRow[]> {
    const { flags } = await this.parse(NamespaceList)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<NamespacesAnswer>('/api/v1/resources/namespaces')
    const rows = groupedRows(answer.namespaces, 'namespace')
    out.list(rows, groupedColumns('NAMESPACE'))
    return rows
  }
}
