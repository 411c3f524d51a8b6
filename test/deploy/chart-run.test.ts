/**
 * What the chart renders, run: the 3-replica StatefulSet's container command and environment from
 * `helm template`, started as three `queenctl serve` processes the way three pods would run them (their
 * secrets from the rendered Secret, their DNS names mapped to addresses of their own), on a PostgreSQL of
 * this test's that it can stop. The mesh must come up authenticated between all three, liveness must not
 * follow PostgreSQL while readiness does, and SIGTERM must drain within the pods' grace period.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/platform/postgres/embedded-postgres.js'
import { http } from '../support/broker.js'
import { runCli } from '../support/cli-harness.js'
import { freePort } from '../support/mesh-cluster.js'
import { until } from '../support/poll.js'
import { closeQueen, openQueen } from '../compat/client.js'
import { brokerContainer, envEntry, only, render, type KubeObject } from './support/helm.js'
import { addHosts, startPod, type LocalPod } from './support/pods.js'
import { describeDeployTier } from './support/tier.js'

/** The JSON log line of `pod` whose msg is `message` (QUEEN_LOG_JSON is on in the chart). */
async function logLine(pod: LocalPod, message: string): Promise<Record<string, unknown>> {
  const match = await pod.process.waitFor(new RegExp(`^\\{.*"msg":"${message}".*\\}$`, 'm'), 30_000)
  return JSON.parse(match[0]) as Record<string, unknown>
}

/** GET of a probe's path on the probe's named port, as the kubelet calls it. */
async function probe(pod: LocalPod, spec: { httpGet: { path: string; port: string } }): Promise<number> {
  const response = await fetch(`${pod.url(spec.httpGet.port)}${spec.httpGet.path}`, {
    signal: AbortSignal.timeout(5_000),
  })
  await response.arrayBuffer()
  return response.status
}

describeDeployTier('the chart, run', ['helm', 'root', 'client'], () => {
  let postgres: EmbeddedPostgres | undefined
  let dataDir: string

  beforeAll(async () => {
    dataDir = await mkdtemp('/tmp/queenctl-chart-run-pg-')
    postgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), lock: false })
  }, 120_000)
  afterAll(async () => {
    await postgres?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('three brokers as the StatefulSet runs them: an hmac mesh of 3, liveness up and readiness down without PostgreSQL, SIGTERM drained within the grace period', async () => {
    const connection = postgres!.connection
    const objects: KubeObject[] = await render({
      replicaCount: 3,
      // Ports of their own, so that no broker already running on this machine is in the way.
      port: await freePort(),
      mesh: { port: await freePort() },
      postgres: {
        host: connection.host,
        port: connection.port,
        user: connection.user,
        password: connection.password,
        database: connection.database,
      },
    })
    const container = brokerContainer(objects)
    const statefulSet = only(objects, 'StatefulSet')
    const graceMs = statefulSet.spec.template.spec.terminationGracePeriodSeconds * 1000

    // The pods' DNS names (the mesh peers) resolve to the pods' addresses.
    const peers = (envEntry(container, 'QUEEN_MESH_PEERS').value as string).split(',')
    expect(peers).toHaveLength(3)
    const ips = [0, 1, 2].map((ordinal) => `127.0.0.${11 + ordinal}`)
    const removeHosts = await addHosts(peers.map((peer, ordinal) => [ips[ordinal]!, peer.split(':')[0]!]))
    const pods: LocalPod[] = []
    try {
      for (const ordinal of [0, 1, 2]) pods.push(await startPod(objects, ordinal, ips[ordinal]!))
      for (const pod of pods) await logLine(pod, 'listening')

      // The mesh: authenticated, three peers configured, each broker connected to the two others.
      for (const pod of pods) {
        expect(await logLine(pod, 'mesh')).toMatchObject({ peers: 3, auth: 'hmac', server_id: pod.name })
      }
      for (const pod of pods) {
        const connected = async () => {
          const view = (await http({ url: pod.url('http') }, 'GET', '/api/v1/system/mesh')).body
          const states = (view.peers as any[]).map((peer) => peer.state).sort()
          return view.auth === 'hmac' && JSON.stringify(states) === '["connected","connected","self"]'
        }
        await until(`${pod.name} connected to both peers`, connected, () => pod.process.output())
      }
      const status = await runCli(['mesh', 'status', '--output', 'json'], {
        env: { QUEEN_SERVER: pods[0]!.url('http') },
      })
      expect(status.code, status.stderr).toBe(0)
      expect(JSON.parse(status.stdout)).toMatchObject({ auth: 'hmac', peersConfigured: 3, peersConnected: 2 })

      // Every probe passes; a message pushed on one pod is popped on another (one database, one cluster).
      for (const pod of pods) {
        for (const spec of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
          expect(await probe(pod, spec), `${pod.name} ${spec.httpGet.path}`).toBe(200)
        }
      }
      const producer = await openQueen({ url: pods[0]!.url('http') })
      const consumer = await openQueen({ url: pods[1]!.url('http') })
      try {
        await producer.queue('chart-run').push([{ data: { via: pods[0]!.name } }])
        const popped = await consumer.queue('chart-run').wait(false).pop()
        expect(popped.map((message: any) => message.data)).toEqual([{ via: pods[0]!.name }])
      } finally {
        await closeQueen(producer)
        await closeQueen(consumer)
      }

      // SIGTERM with a long-poll parked: answered by the drain, and the process exits 0 within the grace period.
      const draining = pods[2]!
      const parked = http({ url: draining.url('http') }, 'GET', '/api/v1/pop/queue/chart-idle?wait=true&timeout=30000')
      await until('the pop to park', async () =>
        /^queen_pop_parked 1$/m.test(
          String((await http({ url: draining.url('http') }, 'GET', '/metrics/prometheus')).body),
        ),
      )
      draining.process.child.kill('SIGTERM')
      expect((await parked).body?.messages ?? []).toEqual([])
      expect(await draining.process.exited(graceMs)).toEqual({ code: 0, signal: null })

      // PostgreSQL stops: readiness (/health) turns 503 and takes the pods out of the Service; liveness stays
      // 200 all along, so the kubelet restarts nothing.
      await postgres!.stop()
      postgres = undefined
      const live = pods.slice(0, 2)
      for (const pod of live) {
        await until(`${pod.name} not ready`, async () => {
          expect(await probe(pod, container.livenessProbe)).toBe(200)
          return (await probe(pod, container.readinessProbe)) === 503
        })
        expect(await probe(pod, container.livenessProbe)).toBe(200)
      }
      for (const pod of live) pod.process.child.kill('SIGTERM')
      for (const pod of live) expect(await pod.process.exited(graceMs)).toEqual({ code: 0, signal: null })
    } finally {
      for (const pod of pods) {
        await pod.process.kill()
        await pod.removeVolumes()
      }
      await removeHosts()
    }
  }, 180_000)
})
