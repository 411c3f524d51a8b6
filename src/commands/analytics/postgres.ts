import { postgresSummary, type PostgresStatsAnswer } from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsPostgres extends HttpCommand {
  static override summary = "PostgreSQL statistics of the broker's queen schema"
  static override description =
    "GET /api/v1/analytics/postgres-stats, read by the broker from PostgreSQL's statistics views: cache hit ratios, connections, commits, deadlocks, max_connections, shared_buffers, autovacuum, active queries, the largest tables and those with the most dead tuples. Sections the broker's role may not read are listed as unavailable. -o json prints every section (per-table and per-index caches, active queries, vacuum state)."

  static override examples = [
    '<%= config.bin %> analytics postgres',
    '<%= config.bin %> analytics postgres --output json',
  ]

  async run(): Promise<PostgresStatsAnswer> {
    const { flags } = await this.parse(AnalyticsPostgres)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    // An operator route: it refuses the tenancy header (issue 40).
    const stats = await client.get<PostgresStatsAnswer>('/api/v1/analytics/postgres-stats', { tenant: false })
    out.detail(postgresSummary(stats), stats)
    return stats
  }
}
