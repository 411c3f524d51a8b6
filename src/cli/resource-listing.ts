/**
 * `namespace list` and `task list` (docs/cli.md, "Command reference"): the rows of GET /api/v1/resources/namespaces and
 * /tasks (docs/http-api.md, "Resource listings"), one table shape for both.
 */
import type { Column } from './output.js'
import type { GroupedQueues } from '../wire/index.js'

/** One namespace or task with its queue, partition and message counts. */
export interface GroupedResourceRow {
  /** The namespace or task name. */
  name: string
  queues: number
  partitions: number
  total: number
  pending: number
}

/** Flattens the broker's grouped rows, naming each by `key` (`namespace` or `task`). */
export function groupedRows<K extends 'namespace' | 'task'>(
  wire: readonly (GroupedQueues & Record<K, string>)[],
  key: K,
): GroupedResourceRow[] {
  return wire.map((row) => ({
    name: row[key],
    queues: row.queues,
    partitions: row.partitions,
    total: row.messages.total,
    pending: row.messages.pending,
  }))
}

/** The table columns; `header` names the first (NAMESPACE or TASK). */
export function groupedColumns(header: string): Column<GroupedResourceRow>[] {
  return [
    { header, value: (row) => row.name },
    { header: 'QUEUES', value: (row) => row.queues },
    { header: 'PARTITIONS', value: (row) => row.partitions },
    { header: 'MESSAGES', value: (row) => row.total },
    { header: 'PENDING', value: (row) => row.pending },
  ]
}
