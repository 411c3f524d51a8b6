/**
 * RS256, EdDSA and `auto` with a PEM public key (docs/operations.md, "Token verification"): each broker accepts only
 * the algorithms of its keys, so HS/RS confusion (an HS256 token "signed" with the public key) and a token naming its
 * own key (`jwk`, `jku`, `x5u`) never verify.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, exportSPKI, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { bearer, hsToken, signedToken, SECRET } from './tokens.js'

const CLAIMS = { sub: 'svc', role: 'read-write' }
const READ = '/api/v1/resources/queues'

const rsa = await generateKeyPair('RS256', { extractable: true })
const ed = await generateKeyPair('EdDSA', { extractable: true })
const attacker = await generateKeyPair('RS256', { extractable: true })
const rsaPem = await exportSPKI(rsa.publicKey)
const edPem = await exportSPKI(ed.publicKey)

async function status(broker: TestBroker, token: string): Promise<{ status: number; error?: string }> {
  const answer = await http(broker, 'GET', READ, undefined, bearer(token))
  return { status: answer.status, error: answer.body?.error }
}

describe('RS256 with JWT_PUBLIC_KEY', () => {
  let broker: TestBroker
  let keyServer: Server
  let keyServerHits = 0
  beforeAll(async () => {
    broker = await startTestBroker({
      label: 'auth-rs256',
      config: { auth: { enabled: true, algorithm: 'RS256', publicKey: rsaPem, secret: SECRET } },
    })
    // A server a malicious token points at; the broker must never call it.
    const attackerJwks = { keys: [{ ...(await exportJWK(attacker.publicKey)), kid: 'evil', alg: 'RS256' }] }
    keyServer = createServer((_request, response) => {
      keyServerHits += 1
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify(attackerJwks))
    })
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    await broker.close()
    await new Promise((resolve) => keyServer.close(resolve))
  })

  it('accepts RS256 tokens of its key', async () => {
    expect(await status(broker, await signedToken(CLAIMS, rsa.privateKey, { alg: 'RS256' }))).toEqual({ status: 200 })
  })

  it('refuses an HS256 token signed with the public key as secret, and with the HS secret it ignores', async () => {
    expect(await status(broker, await hsToken(CLAIMS, rsaPem))).toEqual({ status: 401, error: 'Invalid token' })
    expect(await status(broker, await hsToken(CLAIMS, SECRET))).toEqual({ status: 401, error: 'Invalid token' })
  })

  it('refuses EdDSA and a token signed by another RSA key', async () => {
    expect((await status(broker, await signedToken(CLAIMS, ed.privateKey, { alg: 'EdDSA' }))).status).toBe(401)
    expect(await status(broker, await signedToken(CLAIMS, attacker.privateKey, { alg: 'RS256' }))).toEqual({
      status: 401,
      error: 'Invalid token signature',
    })
  })

  it('ignores jwk, jku and x5u headers: the key is the broker’s choice, never the token’s', async () => {
    const { port } = keyServer.address() as AddressInfo
    const url = `http://127.0.0.1:${port}/jwks.json`
    const embedded = await signedToken(CLAIMS, attacker.privateKey, {
      alg: 'RS256',
      jwk: await exportJWK(attacker.publicKey),
    })
    const pointed = await signedToken(CLAIMS, attacker.privateKey, { alg: 'RS256', jku: url, x5u: url })
    expect(await status(broker, embedded)).toEqual({ status: 401, error: 'Invalid token signature' })
    expect(await status(broker, pointed)).toEqual({ status: 401, error: 'Invalid token signature' })
    expect(keyServerHits).toBe(0)
  })
})

describe('EdDSA and auto', () => {
  let eddsa: TestBroker
  let auto: TestBroker
  beforeAll(async () => {
    eddsa = await startTestBroker({
      label: 'auth-eddsa',
      config: { auth: { enabled: true, algorithm: 'EdDSA', publicKey: edPem } },
    })
    auto = await startTestBroker({
      label: 'auth-auto',
      config: { auth: { enabled: true, algorithm: 'auto', publicKey: edPem, secret: SECRET } },
    })
  })
  afterAll(async () => {
    await eddsa.close()
    await auto.close()
  })

  it('EdDSA accepts its key only', async () => {
    expect((await status(eddsa, await signedToken(CLAIMS, ed.privateKey, { alg: 'EdDSA' }))).status).toBe(200)
    expect((await status(eddsa, await signedToken(CLAIMS, rsa.privateKey, { alg: 'RS256' }))).status).toBe(401)
    expect((await status(eddsa, await hsToken(CLAIMS, edPem))).status).toBe(401)
  })

  it('auto takes HS256 with the secret and EdDSA with the key, and never the key as an HS secret', async () => {
    expect((await status(auto, await hsToken(CLAIMS))).status).toBe(200)
    expect((await status(auto, await signedToken(CLAIMS, ed.privateKey, { alg: 'EdDSA' }))).status).toBe(200)
    expect(await status(auto, await hsToken(CLAIMS, edPem))).toEqual({ status: 401, error: 'Invalid token signature' })
    expect((await status(auto, await signedToken(CLAIMS, rsa.privateKey, { alg: 'RS256' }))).status).toBe(401)
  })
})
