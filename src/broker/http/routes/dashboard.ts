/**
 * The web dashboard's routes (docs/http-api.md, "Route table", row 65; "Unknown routes"): `GET /` serves
 * index.html and `GET /assets/*` the hashed files of the build (http/dashboard-files.ts). Registered only with
 * `QUEEN_DASHBOARD` on; the SPA fallback for other unmatched GETs is in the not-found handler (app.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DashboardFiles } from '../dashboard-files.js'

/** Sends a dashboard file, or the unknown-route 404 (saying so when there is no build at all). */
export async function sendDashboardFile(
  files: DashboardFiles,
  name: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (await files.send(reply, name, request.headers['accept-encoding'])) return reply
  const path = request.url.split('?', 1)[0] ?? '/'
  const error = files.built
    ? `Route ${request.method} ${path} not found`
    : `Route ${request.method} ${path} not found: the dashboard is not built (run npm run build)`
  return reply.code(404).send({ error, code: 'QUEEN_ERR_ROUTE_NOT_FOUND' })
}

export function registerDashboardRoutes(app: FastifyInstance, files: DashboardFiles): void {
  app.get('/', (request, reply) => sendDashboardFile(files, 'index.html', request, reply))
  app.get<{ Params: { '*': string } }>('/assets/*', (request, reply) =>
    sendDashboardFile(files, `assets/${request.params['*']}`, request, reply),
  )
}
