/**
 * The gateway's own reads from a broker as a tenant (docs/gateway.md, "Quotas and rate limits"): the listings
 * behind the queues, partitions and stored-bytes quotas, sent like a client's request (tenancy header, a minted
 * token when the brokers verify JWTs) to a healthy broker, with the failover of a safe read.
 */
import type { BrokerTokens } from '../upstream/broker-token.js'
import { forward } from '../upstream/forward.js'
import type { UpstreamSet } from '../upstream/upstream-set.js'
import type { BrokerGet } from './tenant-view.js'

/** A listing that takes longer than this fails the quota check (503) instead of holding the request. */
const BROKER_GET_TIMEOUT_MS = 10_000

export function brokerGetter(upstreams: UpstreamSet, tenancyHeader: string, tokens?: BrokerTokens): BrokerGet {
  return async (tenantId, path) => {
    const headers: Record<string, string> = { accept: 'application/json', [tenancyHeader.toLowerCase()]: tenantId }
    if (tokens) headers.authorization = `Bearer ${await tokens.token(tenantId, 'read-only', 'gateway:quotas')}`
    const answer = await forward(upstreams, {
      method: 'GET',
      url: path,
      headers,
      retrySafe: true,
      signal: AbortSignal.timeout(BROKER_GET_TIMEOUT_MS),
    })
    const chunks: Buffer[] = []
    for await (const chunk of answer.body) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    if (answer.statusCode !== 200) throw new Error(`${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`)
    return JSON.parse(text) as unknown
  }
}
