/**
 * The auth part (docs/operations.md, "Authentication"): builds the token verifier from `JWT_*` before anything else
 * starts, so a key the broker cannot use stops the boot naming its variable, and records every route as it is
 * registered (the route-table test walks them). Decorates `app.auth`; the HTTP part installs the hook (auth/hook.ts)
 * after the request id and before the tenancy gate.
 *
 * The key and verifier modules (and jose under them) are imported only with JWT_ENABLED: a broker without
 * auth never loads them (issue 22, broker memory).
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { TokenVerifier } from '../auth/verify.js'
import type { AuthConfig } from '../config/broker-config.js'
import { BootError } from './boot-error.js'

/** What the auth part gives the others. */
export interface BrokerAuth {
  /** The verifier; undefined while JWT_ENABLED is false (every route is then served to every caller). */
  verifier: TokenVerifier | undefined
  /** `JWT_SKIP_PATHS`. */
  skipPaths: readonly string[]
  /** Every route registered on the app (method, pattern), HEAD routes included. */
  routes: { method: string; url: string }[]
}

declare module 'fastify' {
  interface FastifyInstance {
    auth: BrokerAuth
  }
}

async function authPart(app: FastifyInstance, { config, log }: { config: { auth: AuthConfig }; log: Logger }) {
  const routes: BrokerAuth['routes'] = []
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url })
  })
  app.decorateRequest('identity', null)
  let verifier: TokenVerifier | undefined
  if (config.auth.enabled) {
    const [{ AuthConfigError, loadVerificationKeys }, { TokenVerifier }] = await Promise.all([
      import('../auth/keys.js'),
      import('../auth/verify.js'),
    ])
    try {
      const keys = await loadVerificationKeys(config.auth, (outcome, error) => {
        app.broker.events.emit('jwksFetched', outcome)
        if (error !== undefined) log.warn({ outcome, error }, 'JWKS fetch failed; the last good key set stays in use')
      })
      verifier = new TokenVerifier(keys, config.auth)
      // docs/operations.md, "JWKS" fetches JWKS over HTTPS; plain http lets anyone on the path swap the keys.
      if (keys.jwks !== undefined && config.auth.jwksUrl?.startsWith('http://')) {
        log.warn('config: JWT_JWKS_URL is plain http: signing keys can be replaced in transit; use https')
      }
      log.info({ algorithms: keys.algorithms.join(','), jwks: keys.jwks !== undefined }, 'auth')
    } catch (error) {
      if (error instanceof AuthConfigError) throw new BootError(error.message, 1)
      throw error
    }
  }
  app.decorate('auth', { verifier, skipPaths: config.auth.skipPaths, routes })
}

export default fp(authPart, { name: 'queen-auth' })
