import { describe, expect, it } from 'vitest'
import { resolveBrokerConfig, listBrokerVariables, type ConfigInput } from '../../src/broker/config/resolve.js'
import { ConfigError } from '../../src/platform/config/config-error.js'
import { encryptionKeyId } from '../../src/platform/config/key-format.js'
import { parseEnvFile } from '../../src/platform/config/resolve-variables.js'
import type { HostFacts, VariableSpec } from '../../src/platform/config/variable-table.js'
import { effectiveConfigLines } from '../../src/broker/config/effective-lines.js'
import { IGNORED_VARIABLES, VARIABLES, isIgnoredVariable } from '../../src/broker/config/variables.js'

// A non-root Linux host, so defaults do not depend on who runs the tests.
const HOST: HostFacts = { hostname: 'queen-0', homedir: '/home/alice', uid: 1000, platform: 'linux', tmpdir: '/tmp' }
const KEY = '00'.repeat(32)
const TABLE: readonly VariableSpec[] = VARIABLES

type Env = Record<string, string | undefined>

function resolve(env: Env, rest: Omit<Partial<ConfigInput>, 'env'> = {}) {
  return resolveBrokerConfig({ env, hostFacts: HOST, ...rest })
}

/** The problems of a configuration that must be refused. */
function problemsOf(env: Env, rest: Omit<Partial<ConfigInput>, 'env'> = {}): string[] {
  try {
    resolve(env, rest)
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems]
    throw error
  }
  throw new Error('expected a ConfigError')
}

// Copied by hand from the operations contract, canonical names only, and ours at the end, so a variable added to or dropped from the
// table by mistake fails here (docs/configuration.md, "Variables", is generated from the table itself).
const SPEC_VARIABLES = [
  // 2.1
  'PORT', 'HOST', 'QUEEN_SERVER_ID', 'QUEEN_APPLY_SCHEMA', 'DEFAULT_TIMEOUT', 'DEFAULT_BATCH_SIZE',
  'DEFAULT_SUBSCRIPTION_MODE', 'QUEEN_MAX_BODY_BYTES', 'QUEEN_MAX_BATCH_ITEMS', 'QUEEN_MAX_POP_BATCH',
  'QUEEN_SHUTDOWN_TIMEOUT_MS',
  // 2.2
  'QUEEN_DATA_DIR', 'QUEEN_EMBEDDED_PG_PORT',
  // 2.3
  'PG_HOST', 'PG_PORT', 'PG_USER', 'PG_PASSWORD', 'PG_DATABASE', 'PG_USE_SSL', 'PG_SSL_REJECT_UNAUTHORIZED',
  'PG_SSL_CA', 'DB_POOL_SIZE', 'DB_IDLE_TIMEOUT', 'DB_CONNECTION_TIMEOUT', 'DB_STATEMENT_TIMEOUT', 'DB_LOCK_TIMEOUT',
  'DB_KEEPALIVES_IDLE',
  // 2.4
  'POP_WAIT_INITIAL_INTERVAL_MS', 'POP_WAIT_BACKOFF_THRESHOLD', 'POP_WAIT_BACKOFF_MULTIPLIER',
  'POP_WAIT_MAX_INTERVAL_MS',
  // 2.5
  'FILE_BUFFER_DIR', 'FILE_BUFFER_FLUSH_MS', 'FILE_BUFFER_MAX_BATCH', 'FILE_BUFFER_EVENTS_PER_FILE',
  'QUEEN_SPOOL_MAX_BYTES',
  // 2.6
  'RETENTION_INTERVAL', 'RETENTION_BATCH_SIZE', 'PARTITION_CLEANUP_DAYS', 'METRICS_RETENTION_DAYS',
  'STATS_HISTORY_RETENTION_DAYS', 'EVICTION_INTERVAL', 'EVICTION_BATCH_SIZE', 'STATS_INTERVAL_MS',
  'METRICS_AGGREGATE_INTERVAL_S', 'QUEEN_LEASE_RECLAIM_INTERVAL_MS', 'QUEEN_STATE_REFRESH_MS',
  // 2.7
  'QUEEN_MESH_PORT', 'QUEEN_MESH_PEERS', 'QUEEN_SYNC_SECRET', 'QUEEN_MESH_ALLOW_OPEN', 'QUEEN_SYNC_ENABLED',
  'QUEEN_SYNC_HEARTBEAT_MS', 'QUEEN_SYNC_DEAD_THRESHOLD_MS',
  // 2.8
  'JWT_ENABLED', 'JWT_ALGORITHM', 'JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE',
  'JWT_CLOCK_SKEW', 'JWT_REQUIRE_EXP', 'JWT_SKIP_PATHS', 'JWT_JWKS_REFRESH_INTERVAL', 'JWT_JWKS_TIMEOUT_MS',
  'JWT_JWKS_COOLDOWN_MS', 'JWT_ROLES_CLAIM', 'JWT_ROLES_ARRAY_CLAIM', 'JWT_ROLE_ADMIN', 'JWT_ROLE_READ_WRITE',
  'JWT_ROLE_READ_ONLY',
  // 2.9 to 2.12
  'QUEEN_ENCRYPTION_KEY', 'QUEEN_TENANCY_HEADER', 'QUEEN_TENANCY_CLAIM', 'LOG_LEVEL', 'QUEEN_LOG_JSON',
  'QUEEN_LOG_STATS_INTERVAL_MS', 'QUEEN_METRICS_MAX_QUEUES', 'QUEEN_TEST_HOOKS',
  // Ours, not in the spec (issue 40): what one request may create.
  'QUEEN_MAX_QUEUES_PER_REQUEST', 'QUEEN_MAX_PARTITIONS_PER_REQUEST',
  // Ours (issue 35): the dashboard's switch.
  'QUEEN_DASHBOARD',
] // prettier-ignore

describe('the variable table', () => {
  it('holds exactly the variables of docs/configuration.md, "Variables", once each', () => {
    const names = VARIABLES.map((spec) => spec.name)
    expect(new Set(names).size).toBe(names.length)
    expect([...names].sort()).toEqual([...SPEC_VARIABLES].sort())
  })

  it('declares the aliases of docs/configuration.md, "How configuration is read"', () => {
    const aliases = Object.fromEntries(TABLE.flatMap((spec) => (spec.aliases ?? []).map((alias) => [alias, spec.name])))
    expect(aliases).toEqual({
      PG_DB: 'PG_DATABASE',
      QUEEN_UDP_PEERS: 'QUEEN_MESH_PEERS',
      QUEEN_UDP_NOTIFY_PORT: 'QUEEN_MESH_PORT',
      WORKER_ID: 'QUEEN_SERVER_ID',
      QUEEN_CACHE_REFRESH_INTERVAL_MS: 'QUEEN_STATE_REFRESH_MS',
    })
  })

  it('marks exactly the secrets', () => {
    const secrets = TABLE.filter((spec) => spec.secret).map((spec) => spec.name)
    expect(secrets.sort()).toEqual(
      ['JWT_PUBLIC_KEY', 'JWT_SECRET', 'PG_PASSWORD', 'QUEEN_ENCRYPTION_KEY', 'QUEEN_SYNC_SECRET'].sort(),
    )
  })

  it('has every numeric default inside its own range', () => {
    for (const spec of VARIABLES) {
      if (spec.type === 'integer' || spec.type === 'decimal') {
        expect(spec.default, spec.name).toBeGreaterThanOrEqual(spec.min)
        expect(spec.default, spec.name).toBeLessThanOrEqual(spec.max)
      }
    }
  })

  it('knows the C++-engine variables accepted and ignored, including the patterns', () => {
    for (const name of ['NUM_WORKERS', 'WEBAPP_ROOT', 'DB_KEEPALIVES_COUNT', 'QUEEN_VEGAS_ALPHA', 'QUEEN_VEGAS_BETA']) {
      expect(isIgnoredVariable(name), name).toBe(true)
    }
    for (const type of ['PUSH', 'POP', 'ACK', 'TRANSACTION', 'RENEW_LEASE', 'CUSTOM']) {
      for (const knob of ['PREFERRED_BATCH_SIZE', 'MAX_HOLD_MS', 'MAX_BATCH_SIZE', 'MAX_CONCURRENT']) {
        expect(isIgnoredVariable(`QUEEN_${type}_${knob}`)).toBe(true)
      }
    }
    expect(isIgnoredVariable('QUEEN_ENCRYPTION_KEY')).toBe(false)
    expect(IGNORED_VARIABLES.filter((name) => SPEC_VARIABLES.includes(name))).toEqual([])
  })
})

describe('defaults', () => {
  it('are the values of docs/configuration.md, "Variables" when nothing is set', () => {
    const { config, warnings, infos } = resolve({})
    expect(warnings).toEqual([])
    expect(infos).toEqual([])
    expect(config).toEqual({
      port: 6632,
      host: '0.0.0.0',
      serverId: 'queen-0',
      applySchema: true,
      defaultTimeoutMs: 30000,
      defaultBatchSize: 1,
      defaultSubscriptionMode: 'all',
      maxBodyBytes: 33554432,
      maxBatchItems: 10000,
      maxPopBatch: 10000,
      maxQueuesPerRequest: 100,
      maxPartitionsPerRequest: 1000,
      shutdownTimeoutMs: 30000,
      dashboard: true,
      dataDir: '/home/alice/.queen/data',
      embeddedPgPort: 0,
      pg: {
        host: undefined,
        port: 5432,
        user: 'postgres',
        password: 'postgres',
        database: 'postgres',
        useSsl: false,
        sslRejectUnauthorized: true,
        sslCa: undefined,
        poolSize: 20,
        idleTimeoutMs: 30000,
        connectionTimeoutMs: 2000,
        statementTimeoutMs: 30000,
        lockTimeoutMs: 10000,
        keepalivesIdleSeconds: 60,
      },
      popWait: { initialIntervalMs: 100, backoffThreshold: 3, backoffMultiplier: 2, maxIntervalMs: 1000 },
      spool: { dir: '/var/lib/queen/buffers', flushMs: 100, maxBatch: 100, eventsPerFile: 10000, maxBytes: 0 },
      jobs: {
        retentionIntervalMs: 300000,
        retentionBatchSize: 1000,
        partitionCleanupDays: 30,
        metricsRetentionDays: 90,
        statsHistoryRetentionDays: 7,
        evictionIntervalMs: 60000,
        evictionBatchSize: 1000,
        statsIntervalMs: 10000,
        metricsAggregateIntervalSeconds: 60,
        leaseReclaimIntervalMs: 1000,
        stateRefreshMs: 5000,
      },
      mesh: {
        port: 6633,
        peers: [],
        secret: undefined,
        allowOpen: false,
        enabled: true,
        heartbeatMs: 1000,
        deadThresholdMs: 5000,
      },
      auth: {
        enabled: false,
        algorithm: 'HS256',
        secret: undefined,
        publicKey: undefined,
        jwksUrl: undefined,
        issuer: undefined,
        audience: undefined,
        clockSkewSeconds: 30,
        requireExp: false,
        skipPaths: ['/health', '/metrics/prometheus', '/metrics', '/'],
        jwksRefreshIntervalSeconds: 3600,
        jwksTimeoutMs: 5000,
        jwksCooldownMs: 30000,
        rolesClaim: 'role',
        rolesArrayClaim: 'roles',
        roles: { admin: 'admin', readWrite: 'read-write', readOnly: 'read-only' },
      },
      encryptionKey: undefined,
      tenancy: { header: undefined, claim: undefined },
      log: { level: 'info', json: false, statsIntervalMs: 30000, metricsMaxQueues: 1000 },
      testHooks: false,
    })
  })

  it('freezes the config all the way down', () => {
    const { config } = resolve({ QUEEN_MESH_PEERS: 'a:1,b:2' })
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.pg)).toBe(true)
    expect(Object.isFrozen(config.mesh.peers)).toBe(true)
    expect(Object.isFrozen(config.auth.roles)).toBe(true)
    expect(() => {
      ;(config as { port: number }).port = 1
    }).toThrow(TypeError)
  })

  it('puts the data directory under /var/lib/queen when running as root', () => {
    expect(resolve({}, { hostFacts: { ...HOST, uid: 0, homedir: '/root' } }).config.dataDir).toBe('/var/lib/queen/data')
    expect(resolve({}, { hostFacts: { ...HOST, uid: 501, homedir: '/Users/bob' } }).config.dataDir).toBe(
      '/Users/bob/.queen/data',
    )
  })

  it('puts the spool under the OS temp directory outside Linux', () => {
    const { config } = resolve({}, { hostFacts: { ...HOST, platform: 'darwin', tmpdir: '/private/tmp' } })
    expect(config.spool.dir).toBe('/private/tmp/queen/buffers')
  })
})

describe('precedence', () => {
  it('is flags > environment > env file > defaults', () => {
    const envFile = 'PORT=7001\nHOST=10.0.0.1\nLOG_LEVEL=warn\nDB_POOL_SIZE=7\n'
    const env = { PORT: '7002', HOST: '10.0.0.2', LOG_LEVEL: 'error' }
    const flags = { port: 7003, logLevel: 'debug' }
    const { config } = resolve(env, { envFile, flags })
    expect(config.port).toBe(7003)
    expect(config.log.level).toBe('debug')
    expect(config.host).toBe('10.0.0.2')
    expect(config.pg.poolSize).toBe(7)
    expect(config.pg.port).toBe(5432)
  })

  it('never lets the env file override a variable already in the environment', () => {
    const { config } = resolve({ PG_DATABASE: 'from_env' }, { envFile: 'PG_DATABASE=from_file' })
    expect(config.pg.database).toBe('from_env')
  })

  it('keeps an alias set in the environment over the canonical name in the env file', () => {
    const { config, warnings } = resolve({ PG_DB: 'from_env' }, { envFile: 'PG_DATABASE=from_file' })
    expect(config.pg.database).toBe('from_env')
    expect(warnings).toEqual([])
  })

  it('treats an empty value as unset in every source', () => {
    expect(resolve({ PORT: '' }).config.port).toBe(6632)
    expect(resolve({ PORT: '' }, { envFile: 'PORT=7100' }).config.port).toBe(7100)
    expect(resolve({ JWT_ENABLED: '', QUEEN_ENCRYPTION_KEY: '' }).config.encryptionKey).toBeUndefined()
    expect(resolve({ HOST: '1.2.3.4' }, { flags: { host: '' } }).config.host).toBe('1.2.3.4')
  })

  it('takes --data-dir over QUEEN_DATA_DIR', () => {
    expect(resolve({ QUEEN_DATA_DIR: '/a' }, { flags: { dataDir: '/b' } }).config.dataDir).toBe('/b')
  })
})

describe('the env file', () => {
  it('reads comments, export prefixes and quotes', () => {
    const { entries, problems } = parseEnvFile(
      '# comment\r\n\nexport PG_USER=queen\nPG_PASSWORD="pa ss#word"\nJWT_ISSUER = \'issuer\'\nHOST=  1.2.3.4  \n',
    )
    expect(problems).toEqual([])
    expect(Object.fromEntries(entries)).toEqual({
      PG_USER: 'queen',
      PG_PASSWORD: 'pa ss#word',
      JWT_ISSUER: 'issuer',
      HOST: '1.2.3.4',
    })
  })

  it('reports a malformed line by number without echoing it', () => {
    const problems = problemsOf({}, { envFile: 'PORT=1\nJWT_SECRET hunter2\n' })
    expect(problems).toEqual(['config error: env file line 2 is not KEY=VALUE'])
  })

  it('says when an invalid value came from the env file', () => {
    expect(problemsOf({}, { envFile: 'PORT=abc' })).toEqual([
      'config error: PORT="abc" is not an integer (from the env file)',
    ])
  })
})

describe('strict parsing', () => {
  it('accepts true, false, 1 and 0 in any letter case', () => {
    for (const [raw, expected] of [
      ['true', true],
      ['TRUE', true],
      ['True', true],
      ['1', true],
      ['false', false],
      ['FALSE', false],
      ['0', false],
    ] as const) {
      expect(resolve({ QUEEN_LOG_JSON: raw }).config.log.json, raw).toBe(expected)
    }
  })

  it('refuses any other boolean spelling, naming the variable', () => {
    expect(problemsOf({ JWT_ENABLED: 'yes' })).toEqual([
      'config error: JWT_ENABLED="yes" is not a boolean (use true, false, 1 or 0)',
    ])
    for (const raw of ['on', 'no', '2', ' true', 'true\n', 't']) {
      expect(problemsOf({ PG_USE_SSL: raw }), raw).toEqual([
        `config error: PG_USE_SSL=${JSON.stringify(raw)} is not a boolean (use true, false, 1 or 0)`,
      ])
    }
  })

  it('accepts plain decimal integers only', () => {
    expect(resolve({ DB_POOL_SIZE: '50' }).config.pg.poolSize).toBe(50)
    expect(resolve({ DB_POOL_SIZE: '007' }).config.pg.poolSize).toBe(7)
    expect(problemsOf({ DB_POOL_SIZE: 'ten' })).toEqual(['config error: DB_POOL_SIZE="ten" is not an integer'])
    for (const raw of ['1e3', '10.0', '+5', ' 5', '5 ', '0x10', '1_000', '']) {
      if (raw === '') continue
      expect(problemsOf({ DB_POOL_SIZE: raw }), raw).toEqual([
        `config error: DB_POOL_SIZE=${JSON.stringify(raw)} is not an integer`,
      ])
    }
  })

  it('enforces ranges', () => {
    expect(problemsOf({ PORT: '70000' })).toEqual(['config error: PORT="70000" is out of range (0-65535)'])
    // 0 asks the kernel for a free port (tests, side-by-side brokers).
    expect(resolve({ PORT: '0' }).config.port).toBe(0)
    expect(problemsOf({ DB_POOL_SIZE: '-5' })).toEqual(['config error: DB_POOL_SIZE="-5" is out of range (1-1000)'])
    expect(problemsOf({ DB_POOL_SIZE: '1001' })).toEqual(['config error: DB_POOL_SIZE="1001" is out of range (1-1000)'])
    expect(resolve({ QUEEN_EMBEDDED_PG_PORT: '0', DB_POOL_SIZE: '1000' }).config.embeddedPgPort).toBe(0)
    // Timers above 2^31-1 ms would fire after 1 ms in Node.
    expect(problemsOf({ RETENTION_INTERVAL: '2147483648' })).toEqual([
      'config error: RETENTION_INTERVAL="2147483648" is out of range (1-2147483647)',
    ])
  })

  it('hints at Kubernetes service links when a port variable holds a URL', () => {
    expect(problemsOf({ PG_PORT: 'tcp://10.0.0.5:5432' })).toEqual([
      'config error: PG_PORT="tcp://10.0.0.5:5432" is not an integer (a Kubernetes service link? set enableServiceLinks: false)',
    ])
  })

  it('parses the backoff multiplier as a plain decimal within 1.0-10.0', () => {
    expect(resolve({ POP_WAIT_BACKOFF_MULTIPLIER: '2.5' }).config.popWait.backoffMultiplier).toBe(2.5)
    expect(resolve({ POP_WAIT_BACKOFF_MULTIPLIER: '10' }).config.popWait.backoffMultiplier).toBe(10)
    expect(problemsOf({ POP_WAIT_BACKOFF_MULTIPLIER: '0.5' })).toEqual([
      'config error: POP_WAIT_BACKOFF_MULTIPLIER="0.5" is out of range (1.0-10.0)',
    ])
    for (const raw of ['2,5', '1e1', '.5', '2.', 'two']) {
      expect(problemsOf({ POP_WAIT_BACKOFF_MULTIPLIER: raw }), raw).toEqual([
        `config error: POP_WAIT_BACKOFF_MULTIPLIER=${JSON.stringify(raw)} is not a decimal number`,
      ])
    }
  })

  it('matches enums in any letter case and stores the canonical spelling', () => {
    const { config } = resolve({ LOG_LEVEL: 'DEBUG', JWT_ALGORITHM: 'eddsa', JWT_ENABLED: 'true', JWT_PUBLIC_KEY: 'k' })
    expect(config.log.level).toBe('debug')
    expect(config.auth.algorithm).toBe('EdDSA')
    expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual([
      'config error: LOG_LEVEL="verbose" is not one of trace, debug, info, warn, error',
    ])
    expect(problemsOf({ DEFAULT_SUBSCRIPTION_MODE: 'latest' })).toEqual([
      'config error: DEFAULT_SUBSCRIPTION_MODE="latest" is not one of all, new, new-only',
    ])
  })

  it('validates flags with the same rules, naming the flag', () => {
    expect(problemsOf({}, { flags: { port: 70000, logLevel: 'loud' } })).toEqual([
      'config error: --port="70000" is out of range (0-65535)',
      'config error: --log-level="loud" is not one of trace, debug, info, warn, error',
    ])
  })

  it('reports every invalid variable at once', () => {
    let caught: unknown
    try {
      resolve({ PORT: '70000', JWT_ENABLED: 'yes', DB_POOL_SIZE: 'ten', LOG_LEVEL: 'loud' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    const error = caught as ConfigError
    expect(error.problems).toHaveLength(4)
    for (const problem of error.problems) expect(error.message).toContain(problem)
    expect(error.message).toContain('JWT_ENABLED="yes"')
    expect(error.message).toContain('DB_POOL_SIZE="ten"')
  })

  it('checks rules across variables', () => {
    expect(problemsOf({ DEFAULT_BATCH_SIZE: '200', QUEEN_MAX_POP_BATCH: '100' })).toEqual([
      'config error: DEFAULT_BATCH_SIZE=200 is larger than QUEEN_MAX_POP_BATCH=100',
    ])
    expect(problemsOf({ JWT_ENABLED: 'true' })).toEqual([
      'config error: JWT_ENABLED=true with JWT_ALGORITHM=HS256 needs JWT_SECRET',
    ])
    expect(problemsOf({ JWT_ENABLED: '1', JWT_ALGORITHM: 'RS256', JWT_SECRET: 'x'.repeat(32) })).toEqual([
      'config error: JWT_ENABLED=true with JWT_ALGORITHM=RS256 needs JWT_PUBLIC_KEY or JWT_JWKS_URL',
    ])
    // Alongside other errors, not on a second run.
    expect(problemsOf({ JWT_ENABLED: 'true', PORT: 'x', POP_WAIT_MAX_INTERVAL_MS: 'y' })).toEqual([
      'config error: PORT="x" is not an integer',
      'config error: POP_WAIT_MAX_INTERVAL_MS="y" is not an integer',
      'config error: JWT_ENABLED=true with JWT_ALGORITHM=HS256 needs JWT_SECRET',
    ])
    expect(problemsOf({ JWT_JWKS_URL: 'ftp://keys' })).toEqual([
      'config error: JWT_JWKS_URL="ftp://keys" is not an http:// or https:// URL',
    ])
    expect(problemsOf({ QUEEN_TENANCY_CLAIM: 'tenant' })).toEqual([
      'config error: QUEEN_TENANCY_CLAIM=tenant needs JWT_ENABLED=true and QUEEN_TENANCY_HEADER',
    ])
    expect(problemsOf({ QUEEN_TENANCY_CLAIM: 'tenant', QUEEN_TENANCY_HEADER: 'X-Queen-Tenant' })).toEqual([
      'config error: QUEEN_TENANCY_CLAIM=tenant needs JWT_ENABLED=true',
    ])
    expect(problemsOf({ QUEEN_TENANCY_HEADER: 'X Queen Tenant' })).toEqual([
      'config error: QUEEN_TENANCY_HEADER="X Queen Tenant" is not a valid HTTP header name',
    ])
  })
})

describe('QUEEN_ENCRYPTION_KEY', () => {
  const keyProblems = (key: string) => problemsOf({ QUEEN_ENCRYPTION_KEY: key })

  it.each([
    ['63 characters', 'a'.repeat(63), 'has 63 characters; expected 64 hexadecimal characters'],
    ['65 characters', 'a'.repeat(65), 'has 65 characters; expected 64 hexadecimal characters'],
    ['a non-hex character', 'g' + 'a'.repeat(63), 'has a non-hexadecimal character at position 1'],
    ['a 0x prefix', '0x' + 'a'.repeat(64), 'has 66 characters; expected 64 hexadecimal characters (remove the 0x prefix)'],
    ['a 0x prefix in 64 characters', '0x' + 'a'.repeat(62), 'position 2; expected 64 hexadecimal characters (remove the 0x prefix)'],
    ['a trailing newline', 'a'.repeat(64) + '\n', 'has 65 characters; expected 64 hexadecimal characters (a trailing newline?)'],
    ['a trailing space', 'a'.repeat(64) + ' ', 'has 65 characters; expected 64 hexadecimal characters (a trailing space?)'],
  ])('refuses %s, naming the variable and never the value', (_case, key, expected) => {
    const problems = keyProblems(key)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^config error: QUEEN_ENCRYPTION_KEY /)
    expect(problems[0]).toContain(expected)
    expect(problems[0]).not.toContain(key.trim())
    expect(problems[0]).not.toContain('aaaaaaaa')
  }) // prettier-ignore

  it('gives the spec message for a key with a trailing newline', () => {
    expect(keyProblems(KEY + '\n')).toEqual([
      'config error: QUEEN_ENCRYPTION_KEY has 65 characters; expected 64 hexadecimal characters (a trailing newline?)',
    ])
  })

  it('accepts 64 hexadecimal characters in either case, with the same key id', () => {
    const lower = 'abcdef0123456789'.repeat(4)
    const upper = lower.toUpperCase()
    expect(resolve({ QUEEN_ENCRYPTION_KEY: upper }).config.encryptionKey).toBe(upper)
    expect(encryptionKeyId(upper)).toBe(encryptionKeyId(lower))
  })

  it('has a key id made of the first 16 hex characters of SHA-256 of the key bytes', () => {
    // SHA-256 of 32 zero bytes is 66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925.
    expect(encryptionKeyId(KEY)).toBe('66687aadf862bd77')
  })
})

describe('secrets', () => {
  it('are never echoed in problems, warnings or config lines', () => {
    const secrets = {
      PG_PASSWORD: 'pg-Secret-123',
      QUEEN_SYNC_SECRET: 'short-mesh-secret',
      JWT_SECRET: 'short-jwt-secret',
      JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----xyz',
    }
    const bad = { ...secrets, QUEEN_ENCRYPTION_KEY: 'not-a-key-at-all', PORT: 'x' }
    let caught: unknown
    try {
      resolve(bad)
    } catch (error) {
      caught = error
    }
    const error = caught as ConfigError
    const { config, warnings } = resolve({ ...secrets, PG_HOST: 'db', QUEEN_ENCRYPTION_KEY: KEY })
    const text = [error.message, ...error.warnings, ...warnings, ...effectiveConfigLines(config, { version: '1' })]
    for (const secret of [...Object.values(secrets), KEY, 'not-a-key-at-all']) {
      for (const line of text) expect(line).not.toContain(secret)
    }
    expect(warnings).toContain(
      'config: QUEEN_SYNC_SECRET is shorter than 32 bytes (openssl rand -hex 32 makes a strong one)',
    )
  })
})

describe('aliases, typos and ignored variables', () => {
  it('reads a variable under its alias', () => {
    const { config, warnings } = resolve({
      PG_DB: 'queen',
      QUEEN_UDP_PEERS: 'a:6633, b:6633,',
      QUEEN_UDP_NOTIFY_PORT: '7633',
      WORKER_ID: 'worker-7',
      QUEEN_CACHE_REFRESH_INTERVAL_MS: '2500',
    })
    expect(warnings).toEqual([])
    expect(config.pg.database).toBe('queen')
    expect(config.mesh.peers).toEqual(['a:6633', 'b:6633'])
    expect(config.mesh.port).toBe(7633)
    expect(config.serverId).toBe('worker-7')
    expect(config.jobs.stateRefreshMs).toBe(2500)
  })

  it('prefers the canonical name and warns once when both differ', () => {
    const { config, warnings } = resolve({ PG_DB: 'old', PG_DATABASE: 'new' })
    expect(config.pg.database).toBe('new')
    expect(warnings).toEqual(['config: PG_DB and PG_DATABASE are both set to different values; using PG_DATABASE'])
    expect(resolve({ PG_DB: 'same', PG_DATABASE: 'same' }).warnings).toEqual([])
  })

  it('names the alias when its value is invalid', () => {
    expect(problemsOf({ QUEEN_UDP_NOTIFY_PORT: 'x' })).toEqual([
      'config error: QUEEN_UDP_NOTIFY_PORT="x" is not an integer',
    ])
  })

  it('warns about an unknown variable with the nearest known name', () => {
    const { warnings } = resolve({ QUEEN_ENCRYPTON_KEY: KEY, DB_POOLSIZE: '5', JWT_SECRT: 'x', QUEEN_ZZZ: '1' })
    expect(warnings).toEqual([
      'config: unknown variable DB_POOLSIZE (did you mean DB_POOL_SIZE?)',
      'config: unknown variable JWT_SECRT (did you mean JWT_SECRET?)',
      'config: unknown variable QUEEN_ENCRYPTON_KEY (did you mean QUEEN_ENCRYPTION_KEY?)',
      'config: unknown variable QUEEN_ZZZ',
    ])
  })

  it('warns about typos in the env file too', () => {
    expect(resolve({}, { envFile: 'PG_PASWORD=x' }).warnings).toEqual([
      'config: unknown variable PG_PASWORD (did you mean PG_PASSWORD?)',
    ])
  })

  it('does not warn about command-line variables, other programs or Kubernetes service links', () => {
    const env = {
      QUEEN_SERVER: 'http://localhost:6632',
      QUEEN_TOKEN: 't',
      QUEEN_CONTEXT: 'prod',
      QUEEN_CONFIG: '/c.yaml',
      QUEEN_TENANT: 'acme',
      QUEEN_PG_URL: 'postgres://x',
      HOME: '/root',
      PGHOST: 'x',
      QUEEN_PORT: 'tcp://10.0.0.1:6632',
      QUEEN_SERVICE_HOST: '10.0.0.1',
      QUEEN_SERVICE_PORT: '6632',
      QUEEN_SERVICE_PORT_HTTP: '6632',
      QUEEN_PORT_6632_TCP: 'tcp://10.0.0.1:6632',
      QUEEN_PORT_6632_TCP_ADDR: '10.0.0.1',
      QUEEN_UNKNOWN_BUT_EMPTY: '',
    }
    expect(resolve(env).warnings).toEqual([])
  })

  it('lists the C++-engine variables present in one info line', () => {
    const { infos, warnings } = resolve(
      { SIDECAR_POOL_SIZE: '8', NUM_WORKERS: '4', QUEEN_VEGAS_ALPHA: '3', WEBAPP_ROOT: '' },
      { envFile: 'QUEEN_PUSH_MAX_HOLD_MS=5' },
    )
    expect(warnings).toEqual([])
    expect(infos).toEqual([
      'config: ignored variables NUM_WORKERS,QUEEN_PUSH_MAX_HOLD_MS,QUEEN_VEGAS_ALPHA,SIDECAR_POOL_SIZE (C++ engine tuning; no effect)',
    ])
  })

  it('gives the example line of docs/configuration.md, "Accepted and ignored"', () => {
    expect(resolve({ NUM_WORKERS: '4', SIDECAR_POOL_SIZE: '8' }).infos).toEqual([
      'config: ignored variables NUM_WORKERS,SIDECAR_POOL_SIZE (C++ engine tuning; no effect)',
    ])
  })
})

describe('effective-config lines', () => {
  const extras = { version: '1.2.0', nodeVersion: 'v20.18.0', pid: 1 }

  it('match the example of docs/operations.md, "The effective configuration" for an external database', () => {
    const env = {
      QUEEN_SERVER_ID: 'queen-0',
      PG_HOST: 'queen-pg',
      PG_DATABASE: 'queen',
      PG_USER: 'queen',
      PG_PASSWORD: 'fourteen-chars',
      PG_USE_SSL: 'true',
      QUEEN_ENCRYPTION_KEY: KEY,
      QUEEN_MESH_PEERS: 'queen-0.queen-mesh:6633,queen-1.queen-mesh:6633,queen-2.queen-mesh:6633',
      QUEEN_SYNC_SECRET: 's'.repeat(48),
    }
    expect(effectiveConfigLines(resolve(env).config, extras)).toEqual([
      'config: server    port=6632 host=0.0.0.0 server_id=queen-0 version=1.2.0 node=v20.18.0 pid=1',
      'config: database  mode=external host=queen-pg port=5432 database=queen user=queen password=<set:14 chars> ssl=verify ca=<unset> pool=20 statement_timeout_ms=30000 lock_timeout_ms=10000 apply_schema=true',
      'config: security  encryption_key=<set:64 chars> key_id=66687aadf862bd77 tenancy_header=<unset> tenancy_claim=<unset> test_hooks=off metrics=public',
      'config: spool     dir=/var/lib/queen/buffers fallback=no max_bytes=0 events_per_file=10000 flush_ms=100 replay_batch=100',
      'config: mesh      port=6633 peers=queen-0.queen-mesh:6633,queen-1.queen-mesh:6633,queen-2.queen-mesh:6633 secret=<set:48 chars> auth=hmac allow_open=false heartbeat_ms=1000',
      'config: auth      enabled=false algorithm=HS256 secret=<unset> public_key=<unset> jwks_url=<unset> issuer=<unset> audience=<unset> clock_skew_s=30 require_exp=false skip_paths=/health,/metrics/prometheus,/metrics,/',
    ])
  })

  it('describe the embedded server, TLS modes, open mesh and the spool fallback', () => {
    const embedded = effectiveConfigLines(resolve({ QUEEN_TEST_HOOKS: 'true' }).config, {
      ...extras,
      spool: { dir: '/tmp/queen-spool-queen-0', fallback: true },
    })
    expect(embedded[1]).toBe(
      'config: database  mode=embedded dir=/home/alice/.queen/data port=auto pool=20 statement_timeout_ms=30000 lock_timeout_ms=10000 apply_schema=true',
    )
    expect(embedded[2]).toBe(
      'config: security  encryption_key=<unset> tenancy_header=<unset> tenancy_claim=<unset> test_hooks=on metrics=public',
    )
    expect(embedded[3]).toMatch(/^config: spool {5}dir=\/tmp\/queen-spool-queen-0 fallback=yes /)
    expect(embedded[4]).toBe(
      'config: mesh      port=6633 peers=<none> secret=<unset> auth=off allow_open=false heartbeat_ms=1000',
    )

    const fixedPort = effectiveConfigLines(resolve({ QUEEN_EMBEDDED_PG_PORT: '5499' }).config, extras)
    expect(fixedPort[1]).toContain('mode=embedded dir=/home/alice/.queen/data port=5499 ')

    const noVerify = resolve({ PG_HOST: 'db', PG_USE_SSL: '1', PG_SSL_REJECT_UNAUTHORIZED: '0', PG_SSL_CA: '/ca.pem' })
    expect(effectiveConfigLines(noVerify.config, extras)[1]).toContain(' ssl=no-verify ca=/ca.pem ')
    expect(noVerify.warnings).toEqual([
      'config: PG_SSL_REJECT_UNAUTHORIZED=false: TLS to PostgreSQL is encrypted but not verified',
    ])
    expect(effectiveConfigLines(resolve({ PG_HOST: 'db' }).config, extras)[1]).toContain(' ssl=off ')
  })

  it('say who may read the metrics routes, which tenancy changes unless JWT_SKIP_PATHS is set (issue 40)', () => {
    const jwt = { JWT_ENABLED: 'true', JWT_SECRET: 's'.repeat(32) }
    const security = (env: Record<string, string>) =>
      effectiveConfigLines(resolve(env).config, extras).find((line) => line.startsWith('config: security'))
    const auth = (env: Record<string, string>) =>
      effectiveConfigLines(resolve(env).config, extras).find((line) => line.startsWith('config: auth'))
    expect(security(jwt)).toMatch(/ metrics=public$/)
    expect(auth(jwt)).toMatch(/ skip_paths=\/health,\/metrics\/prometheus,\/metrics,\/$/)
    const tenancy = { ...jwt, QUEEN_TENANCY_HEADER: 'X-Queen-Tenant' }
    expect(resolve(tenancy).config.auth.skipPaths).toEqual(['/health', '/'])
    expect(security(tenancy)).toMatch(/ metrics=admin-token$/)
    expect(auth(tenancy)).toMatch(/ skip_paths=\/health,\/$/)
    // Written by the operator, the list holds as written.
    const listed = { ...tenancy, JWT_SKIP_PATHS: '/health,/metrics,/metrics/prometheus' }
    expect(resolve(listed).config.auth.skipPaths).toEqual(['/health', '/metrics', '/metrics/prometheus'])
    expect(security(listed)).toMatch(/ metrics=public$/)
    expect(security({ ...tenancy, JWT_SKIP_PATHS: '/health,/metrics' })).toMatch(
      / metrics=\/metrics:public,\/metrics\/prometheus:admin-token$/,
    )
    // Without JWT every route is open, tenancy or not.
    expect(security({ QUEEN_TENANCY_HEADER: 'X-Queen-Tenant' })).toMatch(/ metrics=public$/)
  })

  it('quote operator text that would break the key=value pairs', () => {
    const lines = effectiveConfigLines(resolve({ QUEEN_SERVER_ID: 'my broker' }).config, extras)
    expect(lines[0]).toContain('server_id="my broker" ')
  })
})

describe('listBrokerVariables', () => {
  it('shows every variable with its default, value and source, secrets redacted', () => {
    const rows = listBrokerVariables({
      env: { PG_DB: 'queen', PG_PASSWORD: 'hunter2', JWT_ENABLED: 'not-validated-here' },
      envFile: 'DB_POOL_SIZE=9',
      flags: { port: 7000 },
      hostFacts: HOST,
    })
    expect(rows.map((row) => row.name)).toEqual(VARIABLES.map((spec) => spec.name))
    const byName = new Map(rows.map((row) => [row.name, row]))
    expect(byName.get('PORT')).toMatchObject({ default: '6632', value: '7000', source: 'flag', setAs: '--port' })
    expect(byName.get('PG_DATABASE')).toMatchObject({
      default: 'postgres',
      value: 'queen',
      source: 'env',
      setAs: 'PG_DB',
    })
    expect(byName.get('PG_PASSWORD')).toMatchObject({ value: '<set:7 chars>', source: 'env', secret: true })
    expect(byName.get('DB_POOL_SIZE')).toMatchObject({ value: '9', source: 'env-file' })
    expect(byName.get('JWT_ENABLED')).toMatchObject({ value: 'not-validated-here', source: 'env' })
    expect(byName.get('QUEEN_SERVER_ID')).toMatchObject({
      default: 'the host name',
      value: 'queen-0',
      source: 'default',
    })
    expect(byName.get('PG_HOST')).toMatchObject({ value: undefined, source: 'default' })
    expect(byName.get('QUEEN_ENCRYPTION_KEY')).toMatchObject({ value: undefined, secret: true })
    expect(JSON.stringify(rows)).not.toContain('hunter2')
  })
})
