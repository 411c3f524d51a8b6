/** GET /metrics (docs/http-api.md, "Health and metrics"): this replica's process figures, read from memory. */

/** GET /metrics. */
export interface MetricsAnswer {
  /** Seconds since the broker started. */
  uptime: number
  /** `rate` is per second over the last stats interval. */
  requests: { total: number; rate: number }
  messages: { total: number; rate: number }
  database: {
    poolSize: number
    idleConnections: number
    /** Requests waiting for a pool connection: the broker's queue of database work not yet started. */
    waitingRequests: number
  }
  memory: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number }
  /** Microseconds of CPU time since the process started. */
  cpu: { user: number; system: number }
}
