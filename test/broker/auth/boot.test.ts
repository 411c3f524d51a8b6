/**
 * A JWT setting the broker cannot use stops the boot naming the variable (docs/operations.md, "Token verification"):
 * through the key loader, through a real broker boot (BootError, exit code 1, before PostgreSQL is touched), and
 * through `queenctl serve`.
 */
import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadVerificationKeys } from '../../../src/broker/auth/keys.js'
import { buildBroker } from '../../../src/broker/broker.js'
import { createLogger } from '../../../src/platform/log/logger.js'
import { BootError } from '../../../src/broker/parts/boot-error.js'
import { testBrokerConfig } from '../../support/broker.js'
import { runCli } from '../../support/cli-harness.js'

const BASE = {
  algorithm: 'HS256' as const,
  jwksRefreshIntervalSeconds: 3600,
  jwksTimeoutMs: 5000,
  jwksCooldownMs: 30000,
}
const rsa = (bits: number) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ type: 'spki', format: 'pem' }).toString()
const ed25519 = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString()

async function refusal(config: Partial<Parameters<typeof loadVerificationKeys>[0]>): Promise<string> {
  try {
    await loadVerificationKeys({ ...BASE, ...config }, () => undefined)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('the key loader accepted it')
}

describe('key loading (docs/operations.md, "Token verification")', () => {
  it('pins the accepted algorithms to the configured keys', async () => {
    const load = (config: Partial<Parameters<typeof loadVerificationKeys>[0]>) =>
      loadVerificationKeys({ ...BASE, ...config }, () => undefined)
    expect((await load({ secret: 's'.repeat(32) })).algorithms).toEqual(['HS256'])
    // HS256 ignores a public key; RS256 ignores a secret.
    expect((await load({ secret: 's'.repeat(32), publicKey: rsa(2048) })).algorithms).toEqual(['HS256'])
    expect((await load({ algorithm: 'RS256', secret: 's'.repeat(32), publicKey: rsa(2048) })).algorithms).toEqual([
      'RS256',
    ])
    expect((await load({ algorithm: 'EdDSA', publicKey: ed25519() })).algorithms).toEqual(['EdDSA'])
    expect((await load({ algorithm: 'auto', secret: 's'.repeat(32), publicKey: ed25519() })).algorithms).toEqual([
      'HS256',
      'EdDSA',
    ])
    expect((await load({ algorithm: 'auto', jwksUrl: 'https://idp.test/jwks' })).algorithms).toEqual(['RS256', 'EdDSA'])
    // PEM with literal \n escapes, as env files carry it.
    expect((await load({ algorithm: 'RS256', publicKey: rsa(2048).replace(/\n/g, '\\n') })).algorithms).toEqual([
      'RS256',
    ])
  })

  it('refuses every key it cannot use, naming the variable', async () => {
    expect(await refusal({})).toBe('config error: JWT_ENABLED=true with JWT_ALGORITHM=HS256 needs JWT_SECRET')
    expect(await refusal({ algorithm: 'RS256', secret: 's'.repeat(32) })).toBe(
      'config error: JWT_ENABLED=true with JWT_ALGORITHM=RS256 needs JWT_PUBLIC_KEY or JWT_JWKS_URL',
    )
    expect(await refusal({ algorithm: 'RS256', publicKey: 'not a pem' })).toMatch(
      /^config error: JWT_PUBLIC_KEY is not a readable PEM public key/,
    )
    expect(await refusal({ algorithm: 'RS256', publicKey: ed25519() })).toBe(
      'config error: JWT_PUBLIC_KEY is a ed25519 key; JWT_ALGORITHM=RS256 needs an RSA key',
    )
    expect(await refusal({ algorithm: 'EdDSA', publicKey: rsa(2048) })).toBe(
      'config error: JWT_PUBLIC_KEY is a rsa key; JWT_ALGORITHM=EdDSA needs an Ed25519 key',
    )
    expect(await refusal({ algorithm: 'RS256', publicKey: rsa(1024) })).toBe(
      'config error: JWT_PUBLIC_KEY is a 1024-bit RSA key; RS256 needs 2048 bits or more',
    )
    const privatePem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    expect(await refusal({ algorithm: 'EdDSA', publicKey: privatePem })).toMatch(/JWT_PUBLIC_KEY holds a private key/)
    expect(await refusal({ algorithm: 'RS256', jwksUrl: 'not a url' })).toBe(
      'config error: JWT_JWKS_URL="not a url" is not a URL',
    )
  })

  it('a real broker boot stops with BootError exit code 1 before it opens a database', async () => {
    const config = testBrokerConfig(
      { JWT_ENABLED: 'true', JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: 'garbage', PG_HOST: '127.0.0.1', PG_PORT: '1' },
      {},
    )
    const log = createLogger({ level: 'fatal', json: false, serverId: 'test', destination: process.stderr })
    const boot = buildBroker(config, { log, durability: false, jobs: false })
    const error = await boot.then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(BootError)
    expect((error as BootError).exitCode).toBe(1)
    expect((error as BootError).message).toContain('JWT_PUBLIC_KEY')
  })

  it('queenctl serve exits 1 naming the variable', { timeout: 60_000 }, async () => {
    const env = { PG_HOST: '127.0.0.1', PG_PORT: '1', PORT: '0', JWT_ENABLED: 'true', JWT_ALGORITHM: 'EdDSA' }
    const serve = await runCli(['serve'], { env: { ...env, JWT_PUBLIC_KEY: rsa(2048) } })
    expect(serve.code).toBe(1)
    expect(serve.stdout + serve.stderr).toContain('config error: JWT_PUBLIC_KEY is a rsa key')
  })
})
