/**
 * Tokens the gateway mints for brokers that verify JWTs (docs/gateway.md, "Isolation"): HS256 with the brokers'
 * secret, the tenant's id in the tenancy claim, the broker role of the key's role, five minutes long. One token per
 * tenant and role is reused until a minute before it expires.
 */
import { SignJWT } from 'jose'
import type { GatewayConfig } from '../config/gateway-config.js'

const TOKEN_TTL_S = 300
const RENEW_BEFORE_MS = 60_000

export class BrokerTokens {
  private readonly cache = new Map<string, { token: string; expiresAt: number }>()
  private readonly secret: Uint8Array
  private readonly settings: NonNullable<GatewayConfig['upstreamJwt']>

  constructor(settings: NonNullable<GatewayConfig['upstreamJwt']>) {
    this.settings = settings
    this.secret = new TextEncoder().encode(settings.secret)
  }

  async token(tenantId: string, brokerRole: string, subject: string): Promise<string> {
    const cacheKey = `${tenantId}\u0000${brokerRole}\u0000${subject}`
    const cached = this.cache.get(cacheKey)
    if (cached && cached.expiresAt - RENEW_BEFORE_MS > Date.now()) return cached.token
    const claims: Record<string, unknown> = { [this.settings.rolesClaim]: brokerRole }
    if (this.settings.tenantClaim) claims[this.settings.tenantClaim] = tenantId
    let jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_TTL_S}s`)
    if (this.settings.issuer) jwt = jwt.setIssuer(this.settings.issuer)
    if (this.settings.audience) jwt = jwt.setAudience(this.settings.audience)
    const token = await jwt.sign(this.secret)
    if (this.cache.size > 10_000) this.cache.clear()
    this.cache.set(cacheKey, { token, expiresAt: Date.now() + TOKEN_TTL_S * 1000 })
    return token
  }
}
