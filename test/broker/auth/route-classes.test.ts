/**
 * The route table (auth/route-classes.ts) against a real broker: every route fastify registered has a
 * class, every row of the table is a registered route, and every role gets exactly its routes: below the
 * route's class 403, at or above it neither 401 nor 403, and no token 401 except on public routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { classAllows, ROUTE_TABLE, routeRule, type RouteClass } from '../../../src/broker/auth/route-classes.js'
import { startTestBroker, type TestBroker } from '../../support/broker.js'
import { rawRequest } from './raw-http.js'
import { bearer, hsToken, SECRET } from './tokens.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({
    label: 'auth-routes',
    // Test hooks on, so the fault-injection route is registered and must be classified too.
    config: { testHooks: true, auth: { enabled: true, secret: SECRET, skipPaths: [] } },
  })
})
afterAll(async () => {
  await broker.close()
})

const ID = '0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b'

/** A concrete path for a route pattern; pops do not wait. */
function concrete(url: string): string {
  const path = url.replace(/:leaseId|:partitionId/g, ID).replace(/:[A-Za-z]+/g, 'auth-x')
  return path.startsWith('/api/v1/pop') ? `${path}?wait=false&namespace=auth-x` : path
}

describe('the route table (docs/http-api.md, "Route table")', () => {
  it('every registered route has a class', () => {
    const routes = broker.app.auth.routes
    expect(routes.length).toBeGreaterThan(60)
    const unclassified = routes.filter((route) => routeRule(route.method, route.url) === undefined)
    expect(unclassified, 'add these routes to src/broker/auth/route-classes.ts').toEqual([])
  })

  it('every row of the table is a registered route', () => {
    const missing = ROUTE_TABLE.filter((rule) => !broker.app.hasRoute({ method: rule.method, url: rule.url }))
    expect(missing).toEqual([])
  })

  it('every role gets exactly its routes', async () => {
    const tokens: [RouteClass, string][] = [
      ['read', bearer(await hsToken({ sub: 'r', role: 'read-only' })).authorization!],
      ['write', bearer(await hsToken({ sub: 'w', role: 'read-write' })).authorization!],
      ['admin', bearer(await hsToken({ sub: 'a', role: 'admin' })).authorization!],
      ['public', bearer(await hsToken({ sub: 'n' })).authorization!],
    ]
    const wrong: string[] = []
    for (const rule of ROUTE_TABLE) {
      const target = concrete(rule.url)
      const anonymous = await rawRequest(broker.url, rule.method, target)
      if ((anonymous.status === 401) !== (rule.auth !== 'public')) {
        wrong.push(`${rule.method} ${rule.url} without a token: ${anonymous.status}`)
      }
      if (rule.auth === 'public') continue
      for (const [granted, authorization] of tokens) {
        const answer = await rawRequest(broker.url, rule.method, target, { headers: { authorization } })
        const allowed = classAllows(granted, rule.auth)
        const refused = answer.status === 401 || answer.status === 403
        if (allowed === refused || (!allowed && answer.status !== 403)) {
          wrong.push(`${rule.method} ${rule.url} as ${granted}: ${answer.status} ${JSON.stringify(answer.body)}`)
        }
      }
    }
    expect(wrong).toEqual([])
  })
})
