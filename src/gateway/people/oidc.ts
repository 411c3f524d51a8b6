/**
 * OpenID Connect sign-in (docs/gateway.md, "People: users, sessions and sign-in"): the authorization code flow with
 * PKCE, through openid-client (discovery, the token exchange, and the ID token's signature, issuer, audience, expiry
 * and nonce). The flow's state, nonce and PKCE verifier travel in a short-lived httpOnly cookie of the browser, so the
 * callback may reach any replica. A sign-in becomes a session of the gateway user the configured claim names.
 */
import * as client from 'openid-client'
import type pg from 'pg'
import type { GatewayConfig } from '../config/gateway-config.js'
import { userByName, userByOidcSubject, type StoredUser } from './users.js'

type OidcSettings = NonNullable<GatewayConfig['people']['oidc']>

export const OIDC_COOKIE = 'queen_oidc'
/** How long a browser may spend at the provider before the callback, seconds. */
export const OIDC_FLOW_TTL_S = 600
const DISCOVERY_TIMEOUT_S = 10

/** What the flow cookie carries between start and callback. */
interface FlowState {
  readonly state: string
  readonly nonce: string
  readonly verifier: string
  readonly rd: string
}

/** A refusal shown to the person signing in. */
export class OidcError extends Error {
  readonly status: number

  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

function encodeFlow(flow: FlowState): string {
  return Buffer.from(JSON.stringify(flow)).toString('base64url')
}

function decodeFlow(text: string | undefined): FlowState | undefined {
  if (text === undefined) return undefined
  try {
    const flow = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<FlowState>
    const fields = [flow.state, flow.nonce, flow.verifier, flow.rd]
    return fields.every((field) => typeof field === 'string') ? (flow as FlowState) : undefined
  } catch {
    return undefined
  }
}

export class OidcSignIn {
  private configuration: Promise<client.Configuration> | undefined
  private readonly settings: OidcSettings
  private readonly db: pg.Pool

  constructor(settings: OidcSettings, db: pg.Pool) {
    this.settings = settings
    this.db = db
  }

  /** The provider's metadata, discovered once (again after a failure). */
  private config(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = undefined
      throw new OidcError(502, `the OpenID provider cannot be reached (${(error as Error).message})`)
    })
    return this.configuration
  }

  private discover(): Promise<client.Configuration> {
    const issuer = new URL(this.settings.issuer)
    const secret = this.settings.clientSecret
    return client.discovery(
      issuer,
      this.settings.clientId,
      secret === undefined ? undefined : { client_secret: secret },
      secret === undefined ? client.None() : client.ClientSecretBasic(secret),
      {
        timeout: DISCOVERY_TIMEOUT_S,
        // Plain http is allowed for a loopback issuer only (resolve.ts): a provider on the same machine in tests.
        execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
      },
    )
  }

  /** The provider URL to send the browser to, and the flow cookie's value. */
  async start(rd: string): Promise<{ url: URL; cookie: string }> {
    const config = await this.config()
    const flow: FlowState = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      rd,
    }
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUrl,
      scope: this.settings.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    })
    return { url, cookie: encodeFlow(flow) }
  }

  /** Checks the callback (`search`: its query string) against the flow cookie; returns the user and `rd`. */
  async finish(search: string, cookie: string | undefined): Promise<{ user: StoredUser; rd: string }> {
    const flow = decodeFlow(cookie)
    if (!flow) throw new OidcError(400, 'this sign-in has no flow cookie (expired, or started elsewhere): start again')
    const config = await this.config()
    const current = new URL(this.settings.redirectUrl)
    current.search = search
    let claims: Record<string, unknown> & { sub: string }
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      })
      const idToken = tokens.claims()
      if (!idToken) throw new Error('no ID token')
      claims = idToken
      // Many providers put the email in the ID token; others (OIDC's default for scope claims) only in userinfo.
      if (this.settings.userClaim === 'email' && typeof idToken.email !== 'string') {
        claims = { ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)), sub: idToken.sub }
      }
    } catch (error) {
      throw new OidcError(401, `OpenID Connect sign-in failed: ${(error as Error).message}`)
    }
    return { user: await this.userOf(claims), rd: flow.rd }
  }

  private async userOf(claims: Record<string, unknown> & { sub: string }): Promise<StoredUser> {
    if (this.settings.userClaim === 'email') {
      const email = claims.email
      if (typeof email !== 'string' || claims.email_verified !== true) {
        throw new OidcError(403, 'the OpenID provider gave no verified email for this sign-in')
      }
      const user = await userByName(this.db, email)
      if (!user) throw new OidcError(403, `no gateway user is named ${email}: ask an operator to create one`)
      return user
    }
    const user = await userByOidcSubject(this.db, claims.sub)
    if (!user) {
      throw new OidcError(
        403,
        `no gateway user has OpenID Connect subject ${claims.sub}: ask an operator to run queenctl proxy user create NAME --oidc-subject ${claims.sub}`,
      )
    }
    return user
  }
}
