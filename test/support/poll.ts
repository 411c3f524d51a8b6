/** Polling for a condition a test cannot be told about, and what it polls for stats refreshes. */
import type pg from 'pg'

/** Resolves once `check` is true; throws after about 10 s, naming `what` (and `detail()`, e.g. a log). */
export async function until(what: string, check: () => Promise<boolean>, detail?: () => string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ''}`)
}

/** Backends of `client`'s database (other than its own) running a stats refresh now. */
export async function statsRefreshPids(client: pg.Client): Promise<number[]> {
  const result = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
       AND query LIKE '%refresh_stats%'`,
  )
  return result.rows.map((row) => row.pid)
}

/** Whether the snapshot's horizon row exists, i.e. a stats refresh has committed. */
export async function statsRefreshed(client: pg.Client): Promise<boolean> {
  return ((await client.query('SELECT 1 FROM queen.stats_refresh_state')).rowCount ?? 0) > 0
}
