/**
 * A real OpenID provider for the gateway's sign-in tests: the `oidc-provider` package on a port-0 listener of its
 * own, with its development login form (any login name is the account id `sub`, any password) and one confidential
 * client. The listener comes first and the provider after, so its client can name the gateway's callback.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { trackResource } from './resources.js'

export const OIDC_CLIENT_ID = 'queen-gateway'
export const OIDC_CLIENT_SECRET = 'a-test-client-secret-of-some-length'

export interface TestOidcProvider {
  /** The issuer, `http://localhost:<port>`. */
  issuer: string
  /** Configures the provider with the gateway's callbacks; call once before any sign-in. */
  configure(redirectUris: string[]): void
  close(): Promise<void>
}

export async function startTestOidcProvider(): Promise<TestOidcProvider> {
  let handler: http.RequestListener = (_request, response) => {
    response.statusCode = 503
    response.end('not configured yet')
  }
  const server = http.createServer((request, response) => handler(request, response))
  // Every interface: `localhost` may resolve to ::1 or 127.0.0.1, for the gateway and for the browser alike.
  await new Promise<void>((resolve) => server.listen(0, resolve))
  const port = (server.address() as AddressInfo).port
  const issuer = `http://localhost:${port}`
  const untrack = trackResource(`oidc provider on ${port}`)
  return {
    issuer,
    configure(redirectUris) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: OIDC_CLIENT_ID,
            client_secret: OIDC_CLIENT_SECRET,
            redirect_uris: redirectUris,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        findAccount(_ctx: unknown, id: string) {
          return Promise.resolve({
            accountId: id,
            claims: () => Promise.resolve({ sub: id, email: `${id}@example.com`, email_verified: true }),
          })
        },
        cookies: { keys: ['a-cookie-signing-key-for-tests-only'] },
        // Fixed lifetimes: the defaults are functions the provider warns about on every use.
        ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
      })
      handler = provider.callback()
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      untrack()
    },
  }
}
