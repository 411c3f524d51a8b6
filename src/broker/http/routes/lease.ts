/** POST /api/v1/lease/:leaseId/extend (docs/http-api.md, "Lease extend"). */
import type { FastifyInstance } from 'fastify'
import { describeDbFailure } from '../../../platform/postgres/pg-errors.js'
import { validationError } from '../../errors.js'
import { extendLease } from '../../store/leases.js'
import { tenantOf } from '../tenant.js'
import { asObject, checkUuid } from '../validation/rules.js'
import type { LeaseExtendAnswer } from '../../../wire/index.js'

const DEFAULT_EXTEND_SECONDS = 60

export function registerLeaseRoutes(app: FastifyInstance): void {
  app.post('/api/v1/lease/:leaseId/extend', async (request): Promise<LeaseExtendAnswer> => {
    const leaseId = checkUuid((request.params as { leaseId?: unknown }).leaseId, 'leaseId')
    const body = asObject(request.body)
    const seconds = body.seconds ?? DEFAULT_EXTEND_SECONDS
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) {
      throw validationError('seconds: must be an integer between 1 and 86400')
    }
    try {
      const { outcome, expiresAt } = await extendLease(app.broker.pool, { tenant: tenantOf(request), leaseId, seconds })
      return [
        {
          index: 0,
          leaseId,
          success: outcome === 'extended',
          error: outcome === 'extended' ? null : outcome === 'expired' ? 'Lease already expired' : 'Lease not found',
          expiresAt: expiresAt ? expiresAt.toISOString() : null,
        },
      ]
    } catch (error) {
      request.log.error({ err: error }, 'lease extend failed')
      return [{ index: 0, leaseId, success: false, error: describeDbFailure(error), expiresAt: null }]
    }
  })
}
