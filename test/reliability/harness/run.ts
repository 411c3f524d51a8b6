/**
 * `npm run test:reliability [-- --long] [--seed N] [--minutes M] [--faults a,b] [--report FILE]`: checks
 * that this machine can run the fault harness (root, network namespaces, nftables, Debian's PostgreSQL 15,
 * libfaketime, tmpfs), prints the seed, then runs test/reliability/harness/ under vitest. A machine that
 * cannot run it says so and exits 2: it never counts as passed.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { LIBFAKETIME } from './broker-node.js'
import { FAULTS } from './faults.js'
import { PG15_BIN } from './pg-cluster.js'

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

interface Args {
  long: boolean
  seed: number
  minutes: number
  faults?: string
  report: string
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run test:reliability -- [--long] [--seed N] [--minutes M] [--faults name,...] [--report FILE]\n` +
      `faults: ${FAULTS.map((fault) => fault.name).join(', ')}\n`,
  )
  process.exit(64)
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    long: false,
    seed: Math.floor(Math.random() * 2 ** 31),
    minutes: 30,
    report: '/tmp/queen-reliability-report.json',
  }
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!
    const value = () => argv[++index] ?? usage(`${flag} needs a value`)
    const integer = (text: string) => {
      if (!/^\d+$/.test(text)) usage(`${flag} must be a non-negative integer, got "${text}"`)
      return Number(text)
    }
    if (flag === '--long') args.long = true
    else if (flag === '--seed') args.seed = integer(value())
    else if (flag === '--minutes') args.minutes = integer(value())
    else if (flag === '--faults') {
      args.faults = value()
      for (const name of args.faults.split(',')) {
        if (!FAULTS.some((fault) => fault.name === name)) usage(`--faults: unknown fault "${name}"`)
      }
    } else if (flag === '--report') args.report = value()
    else usage(`unknown flag ${flag}`)
  }
  if (args.minutes < 1) usage('--minutes must be at least 1')
  return args
}

/** What this machine lacks to run the harness; empty when it can. */
function missingPrerequisites(): string[] {
  const missing: string[] = []
  if (process.getuid?.() !== 0) missing.push('root (network namespaces, nftables and tmpfs mounts need it)')
  const works = (file: string, args: string[]) => spawnSync(file, args, { stdio: 'ignore' }).status === 0
  const probe = `qhprobe${process.pid}`
  if (works('ip', ['netns', 'add', probe])) {
    if (!works('ip', ['netns', 'exec', probe, 'nft', 'add', 'table', 'inet', 'probe'])) {
      missing.push('nftables in a network namespace (apt-get install nftables; a kernel with nf_tables)')
    }
    works('ip', ['netns', 'del', probe])
  } else missing.push('network namespaces (`ip netns add` failed: iproute2, root, CONFIG_NET_NS)')
  if (!existsSync(`${PG15_BIN}/pg_basebackup`))
    missing.push(`Debian's PostgreSQL 15 (${PG15_BIN}: apt-get install postgresql-15)`)
  if (!existsSync(LIBFAKETIME)) missing.push(`libfaketime (${LIBFAKETIME}: apt-get install faketime)`)
  // As test/compat/client.ts finds it; without it the test would be skipped, which is no pass.
  const clientDir = process.env.QUEEN_CLIENT_DIR ?? path.resolve(REPO_ROOT, '..', 'shared', 'clients', 'queen-mq-js')
  if (!existsSync(path.join(clientDir, 'client-v2', 'index.js'))) {
    missing.push(`the Queen JavaScript client at ${clientDir} (set QUEEN_CLIENT_DIR)`)
  }
  try {
    execFileSync('getent', ['passwd', 'postgres'], { stdio: 'ignore' })
  } catch {
    missing.push('a "postgres" system user (the postgresql-15 package creates it)')
  }
  return missing
}

const args = parseArgs(process.argv.slice(2))
const missing = missingPrerequisites()
if (missing.length > 0) {
  process.stderr.write(`reliability harness NOT RUN: this machine lacks ${missing.join('; ')}.\nThis is not a pass.\n`)
  process.exit(2)
}
const profile = args.long ? 'long' : 'short'
process.stdout.write(
  `reliability harness: profile ${profile}, seed ${args.seed}` +
    `${args.long ? `, ${args.minutes} min` : ''} (replay with: npm run test:reliability -- ${args.long ? '--long ' : ''}--seed ${args.seed})\n`,
)
const result = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.reliability.config.ts'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      QUEEN_RELIABILITY_PROFILE: profile,
      QUEEN_RELIABILITY_SEED: String(args.seed),
      QUEEN_RELIABILITY_DURATION_MS: String(args.minutes * 60_000),
      QUEEN_RELIABILITY_REPORT: args.report,
      ...(args.faults ? { QUEEN_RELIABILITY_FAULTS: args.faults } : {}),
    },
  },
)
process.exit(result.status ?? 1)
