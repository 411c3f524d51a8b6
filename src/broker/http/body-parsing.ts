/**
 * Request bodies (docs/http-api.md, "Request bodies"): JSON with any `application/json` parameters, JSON when no
 * content type is given, an empty body read as `{}` whatever the content type, 415 for other content types, 400 for
 * unparsable JSON and for `__proto__` / `constructor.prototype` keys.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { BrokerError } from '../errors.js'

type DoneFn = (error: Error | null, body?: unknown) => void

/** Route config flag for routes that read no body: whatever is sent is ignored, never parsed. */
export interface BodylessRouteConfig {
  ignoreBody?: boolean
}

/**
 * Route options marking a route as reading no body (docs/http-api.md, "Request bodies": "Body on a route that reads
 * none").
 */
export const IGNORE_BODY = { config: { ignoreBody: true } satisfies BodylessRouteConfig }

function ignoresBody(request: FastifyRequest): boolean {
  return (request.routeOptions.config as BodylessRouteConfig | undefined)?.ignoreBody === true
}

/**
 * Why the JSON parser refused `text`: fastify's parser reports only that it failed, so the reason is
 * recovered on this (error) path: JSON.parse's own message, or a prototype key if JSON.parse accepts it.
 */
function jsonRefusal(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  return '__proto__ and constructor.prototype keys are not allowed'
}

/** Installs the broker's content-type parsers on `app`. */
export function installBodyParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  const parse = (request: FastifyRequest, body: string | Buffer, done: DoneFn) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (text.length === 0 || ignoresBody(request)) {
      done(null, {})
      return
    }
    void parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (error) {
        done(new BrokerError('invalidJson', `Invalid JSON: ${jsonRefusal(text)}`))
        return
      }
      done(null, value)
    })
  }

  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse)
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    const type = request.headers['content-type']
    if (text.length === 0 || ignoresBody(request)) {
      done(null, {})
      return
    }
    if (type === undefined || type === '') {
      parse(request, text, done)
      return
    }
    done(
      new BrokerError(
        'unsupportedMediaType',
        `Unsupported Content-Type '${type.split(';')[0]?.trim()}': send application/json`,
      ),
    )
  })
}
