/**
 * The Helm chart (docs/deploy.md, "Kubernetes with Helm"), rendered by the real helm: lint, every rendered object valid
 * against the Kubernetes OpenAPI schemas in each shape the values give it, and the facts the Queen documentation warns
 * about (liveness not on /health, the mesh port TCP and out of the client Service and admitted from brokers only, one
 * peer per replica, a Secret change rolling the pods).
 */
import { expect, it } from 'vitest'
import {
  brokerContainer,
  CHART,
  envEntry,
  helm,
  only,
  render,
  schemaProblems,
  template,
  type KubeObject,
} from './support/helm.js'
import { startFakeKubeApi } from './support/fake-kube-api.js'
import { describeDeployTier } from './support/tier.js'

const HOST_ONLY = { postgres: { host: 'queen-pg' } }

/** Values with every secret in the chart's own Secret, JWT (HS256) on, encryption and tenancy set. */
const WITH_JWT = {
  postgres: { host: 'queen-pg', password: 'pg-secret' },
  jwt: { enabled: true, secret: 'a-long-hs256-secret-for-the-tests', issuer: 'https://auth.example.com' },
  encryption: { key: 'ab'.repeat(32) },
  tenancy: { header: 'X-Queen-Tenant', claim: 'tenant' },
  serviceMonitor: { enabled: true },
}

/** Values taking every secret from Secrets of the operator's own, PostgreSQL over verified TLS. */
const EXISTING_SECRETS = {
  postgres: {
    host: 'queen-pg',
    existingSecret: 'ops-postgres',
    passwordKey: 'password',
    ssl: { enabled: true, caSecret: 'ops-postgres-ca' },
  },
  mesh: { existingSecret: 'ops-mesh' },
  encryption: { existingSecret: 'ops-encryption' },
  jwt: { enabled: true, algorithm: 'HS256', secretRef: { name: 'ops-jwt', key: 'hs256' } },
  secretChecksum: 'ops-secrets-v1',
}

/** The value of a plain `value:` env entry. */
function envValue(objects: KubeObject[], name: string): string | undefined {
  return envEntry(brokerContainer(objects), name)?.value
}

function checksum(objects: KubeObject[]): string {
  return only(objects, 'StatefulSet').spec.template.metadata.annotations['checksum/secret']
}

/** The pod labels of the brokers (what the Services and the NetworkPolicy must select). */
function brokerLabels(objects: KubeObject[]): Record<string, string> {
  return only(objects, 'StatefulSet').spec.template.metadata.labels
}

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value)
}

describeDeployTier('the Helm chart', ['helm'], () => {
  it('passes helm lint with only the PostgreSQL host set, and with JWT or existing Secrets', async () => {
    for (const values of [HOST_ONLY, WITH_JWT, EXISTING_SECRETS]) {
      const lint = await helm(['lint', CHART, '--strict'], values)
      expect(lint.code, `${lint.stdout}${lint.stderr}`).toBe(0)
      expect(lint.stdout).toContain('1 chart(s) linted, 0 chart(s) failed')
    }
  })

  it('renders objects valid against the Kubernetes schemas for 1, 2 and 3 replicas, with and without JWT and existing Secrets', async () => {
    const expectedKinds: Record<string, string[]> = {
      '1': ['NetworkPolicy', 'Pod', 'Secret', 'Service', 'Service', 'StatefulSet'],
      '3': ['NetworkPolicy', 'Pod', 'PodDisruptionBudget', 'Secret', 'Service', 'Service', 'StatefulSet'],
    }
    for (const replicaCount of [1, 2, 3]) {
      for (const values of [HOST_ONLY, WITH_JWT, EXISTING_SECRETS]) {
        const objects = await render({ ...values, replicaCount })
        expect(schemaProblems(objects), `replicaCount ${replicaCount}, ${JSON.stringify(values)}`).toEqual([])
        if (values === HOST_ONLY && replicaCount !== 2) {
          expect(objects.map((object) => object.kind).sort()).toEqual(expectedKinds[String(replicaCount)])
        }
      }
    }
  })

  it('requires the PostgreSQL host, refuses more than 3 replicas even unchecked by the schema, and refuses unknown values', async () => {
    expect((await template({})).stderr).toContain('postgres.host is required')
    for (const replicaCount of [0, 4]) {
      const checked = await template({ ...HOST_ONLY, replicaCount })
      expect(checked.code).not.toBe(0)
      expect(checked.stderr).toContain('replicaCount')
      const unchecked = await template({ ...HOST_ONLY, replicaCount }, { flags: ['--skip-schema-validation'] })
      expect(unchecked.code).not.toBe(0)
      expect(unchecked.stderr).toContain(`replicaCount must be 1, 2 or 3 (got ${replicaCount})`)
    }
    const typo = await template({ ...HOST_ONLY, pool: { sise: 10 } })
    expect(typo.code).not.toBe(0)
    expect(typo.stderr).toContain('sise')
    const badKey = await template({ ...HOST_ONLY, encryption: { key: 'not-hex' } })
    expect(badKey.code).not.toBe(0)
    expect(badKey.stderr).toContain('/encryption/key')
    const noJwtKey = await template({ ...HOST_ONLY, jwt: { enabled: true } })
    expect(noJwtKey.stderr).toContain('jwt.enabled with algorithm HS256 needs jwt.secret or jwt.secretRef.name')
  })

  it('probes: startup and readiness on /health, liveness on /health/live, never /health', async () => {
    const container = brokerContainer(await render(HOST_ONLY))
    expect(container.startupProbe.httpGet).toEqual({ path: '/health', port: 'http' })
    expect(container.readinessProbe.httpGet).toEqual({ path: '/health', port: 'http' })
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' })
    expect(container.livenessProbe.httpGet.path).not.toBe('/health')
  })

  it('the mesh port is TCP, on the headless Service only; the client Service carries HTTP only', async () => {
    const objects = await render(HOST_ONLY)
    const ports = brokerContainer(objects).ports as any[]
    expect(ports).toEqual([
      { name: 'http', containerPort: 6632, protocol: 'TCP' },
      { name: 'mesh', containerPort: 6633, protocol: 'TCP' },
    ])
    const client = only(objects, 'Service', 'queen')
    expect(client.spec.ports).toEqual([{ name: 'http', port: 6632, targetPort: 'http', protocol: 'TCP' }])
    expect(matches(client.spec.selector, brokerLabels(objects))).toBe(true)
    const mesh = only(objects, 'Service', 'queen-mesh')
    expect(mesh.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true })
    expect(mesh.spec.ports).toEqual([{ name: 'mesh', port: 6633, targetPort: 'mesh', protocol: 'TCP' }])
    expect(only(objects, 'StatefulSet').spec.serviceName).toBe('queen-mesh')
  })

  it('the NetworkPolicy admits the mesh port (TCP) from the brokers only and HTTP from clients', async () => {
    const objects = await render({
      ...HOST_ONLY,
      networkPolicy: { clientPodSelector: { matchLabels: { queen: 'client' } } },
    })
    const policy = only(objects, 'NetworkPolicy')
    const labels = brokerLabels(objects)
    expect(matches(policy.spec.podSelector.matchLabels, labels)).toBe(true)
    expect(policy.spec.policyTypes).toEqual(['Ingress'])
    const rules = policy.spec.ingress as any[]
    const meshRules = rules.filter((rule) =>
      (rule.ports as any[]).some((port) => port.port === 'mesh' || port.port === 6633),
    )
    expect(meshRules).toHaveLength(1)
    expect(meshRules[0].ports).toEqual([{ port: 'mesh', protocol: 'TCP' }])
    expect(meshRules[0].from).toEqual([{ podSelector: { matchLabels: labels } }])
    const httpRules = rules.filter((rule) => rule !== meshRules[0])
    expect(httpRules).toEqual([
      { from: [{ podSelector: { matchLabels: { queen: 'client' } } }], ports: [{ port: 'http', protocol: 'TCP' }] },
    ])
    // The helm test pod carries the client labels, so the policy lets it through.
    expect(only(objects, 'Pod').metadata.labels).toMatchObject({ queen: 'client' })
  })

  it('renders one mesh peer per replica, each a pod name under the headless Service; none for one replica', async () => {
    for (const replicaCount of [1, 2, 3]) {
      const objects = await render({ ...HOST_ONLY, replicaCount }, { name: 'prod', namespace: 'queues' })
      const statefulSet = only(objects, 'StatefulSet')
      expect(statefulSet.spec.replicas).toBe(replicaCount)
      const peers = envValue(objects, 'QUEEN_MESH_PEERS')
      if (replicaCount === 1) {
        expect(peers).toBeUndefined()
        expect(envEntry(brokerContainer(objects), 'QUEEN_SYNC_SECRET')).toBeUndefined()
        continue
      }
      const expected = Array.from(
        { length: replicaCount },
        (_, ordinal) =>
          `${statefulSet.metadata.name}-${ordinal}.${statefulSet.spec.serviceName}.queues.svc.cluster.local:6633`,
      )
      expect(peers?.split(',')).toEqual(expected)
      expect(envEntry(brokerContainer(objects), 'QUEEN_SYNC_SECRET').valueFrom.secretKeyRef).toEqual({
        name: 'prod-queen-secrets',
        key: 'sync-secret',
      })
    }
  })

  it('runs non-root on a read-only root with the spool on a per-pod volume and a grace period above the drain budget', async () => {
    const objects = await render(HOST_ONLY)
    const statefulSet = only(objects, 'StatefulSet')
    const pod = statefulSet.spec.template.spec
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
    })
    const container = brokerContainer(objects)
    expect(container.command).toEqual(['queenctl'])
    expect(container.args).toEqual(['serve'])
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    })
    const spoolDir = envValue(objects, 'FILE_BUFFER_DIR')
    const spoolMount = (container.volumeMounts as any[]).find((mount) => mount.mountPath === spoolDir)
    expect(spoolMount?.name).toBe('spool')
    expect(statefulSet.spec.volumeClaimTemplates.map((claim: any) => claim.metadata.name)).toEqual(['spool'])
    expect((container.volumeMounts as any[]).find((mount) => mount.mountPath === '/tmp')?.name).toBe('tmp')
    expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: {} })
    // QUEEN_SHUTDOWN_TIMEOUT_MS defaults to 30 s (docs/operations.md, "Shutdown").
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(30)
    expect(statefulSet.spec.podManagementPolicy).toBe('Parallel')
    expect(only(objects, 'PodDisruptionBudget').spec.minAvailable).toBe(2)
  })

  it('a Secret change changes the checksum annotation, so an upgrade rolls the pods', async () => {
    const base = { postgres: { host: 'queen-pg', password: 'one' }, mesh: { secret: 'm'.repeat(48) } }
    const first = checksum(await render(base))
    expect(checksum(await render(base))).toBe(first)
    expect(checksum(await render({ ...base, postgres: { host: 'queen-pg', password: 'two' } }))).not.toBe(first)
    expect(checksum(await render({ ...base, mesh: { secret: 'n'.repeat(48) } }))).not.toBe(first)
    expect(checksum(await render({ ...base, encryption: { key: 'cd'.repeat(32) } }))).not.toBe(first)
    // Other values leave it alone.
    expect(checksum(await render({ ...base, pool: { size: 10 } }))).toBe(first)

    // A generated mesh secret: the annotation is that of the Secret actually rendered beside it.
    const generated = await render(HOST_ONLY)
    const secret = only(generated, 'Secret').data['sync-secret'] as string
    const plain = Buffer.from(secret, 'base64').toString('utf8')
    expect(plain).toMatch(/^[A-Za-z0-9]{48}$/)
    expect(checksum(await render({ ...HOST_ONLY, mesh: { secret: plain } }))).toBe(checksum(generated))

    // With existing Secrets the chart cannot see a change: secretChecksum stands for it.
    const external = checksum(await render(EXISTING_SECRETS))
    expect(checksum(await render({ ...EXISTING_SECRETS, secretChecksum: 'ops-secrets-v2' }))).not.toBe(external)
  })

  it('keeps a generated mesh secret across upgrades: the Secret in the cluster is read back, and the pods do not roll', async () => {
    const api = await startFakeKubeApi()
    try {
      const installed = await render(HOST_ONLY, { kubeconfig: api.kubeconfig })
      const secret = only(installed, 'Secret')
      // As `helm install` leaves it in the cluster: owned by the release.
      api.put({
        ...secret,
        metadata: {
          ...secret.metadata,
          annotations: { 'meta.helm.sh/release-name': 'queen', 'meta.helm.sh/release-namespace': 'queen' },
        },
      })
      const upgraded = await render({ ...HOST_ONLY, pool: { size: 10 } }, { kubeconfig: api.kubeconfig })
      expect(only(upgraded, 'Secret').data['sync-secret']).toBe(secret.data['sync-secret'])
      expect(checksum(upgraded)).toBe(checksum(installed))
      // Without the cluster's Secret a new one is made (what the lookup prevents).
      expect(only(await render(HOST_ONLY), 'Secret').data['sync-secret']).not.toBe(secret.data['sync-secret'])
      // A secret given in the values replaces the kept one, and rolls the pods.
      const replaced = await render({ ...HOST_ONLY, mesh: { secret: 'r'.repeat(48) } }, { kubeconfig: api.kubeconfig })
      expect(Buffer.from(only(replaced, 'Secret').data['sync-secret'], 'base64').toString()).toBe('r'.repeat(48))
      expect(checksum(replaced)).not.toBe(checksum(installed))
    } finally {
      await api.close()
    }
  })

  it('JWT, encryption and tenancy become the broker variables, the secrets read from the chart Secret', async () => {
    const objects = await render(WITH_JWT)
    const container = brokerContainer(objects)
    const secret = only(objects, 'Secret')
    const decoded = Object.fromEntries(
      Object.entries(secret.data as Record<string, string>).map(([key, value]) => [
        key,
        Buffer.from(value, 'base64').toString(),
      ]),
    )
    expect(decoded).toMatchObject({
      'pg-password': 'pg-secret',
      'jwt-secret': 'a-long-hs256-secret-for-the-tests',
      'encryption-key': 'ab'.repeat(32),
    })
    const fromSecret = (name: string) => envEntry(container, name)?.valueFrom?.secretKeyRef
    expect(fromSecret('PG_PASSWORD')).toEqual({ name: secret.metadata.name, key: 'pg-password' })
    expect(fromSecret('JWT_SECRET')).toEqual({ name: secret.metadata.name, key: 'jwt-secret' })
    expect(fromSecret('QUEEN_ENCRYPTION_KEY')).toEqual({ name: secret.metadata.name, key: 'encryption-key' })
    expect(envValue(objects, 'JWT_ENABLED')).toBe('true')
    expect(envValue(objects, 'JWT_ALGORITHM')).toBe('HS256')
    expect(envValue(objects, 'JWT_ISSUER')).toBe('https://auth.example.com')
    expect(envValue(objects, 'QUEEN_TENANCY_HEADER')).toBe('X-Queen-Tenant')
    expect(envValue(objects, 'QUEEN_TENANCY_CLAIM')).toBe('tenant')
    const monitor = only(objects, 'ServiceMonitor')
    expect(monitor.spec.endpoints).toEqual([{ port: 'http', path: '/metrics/prometheus', interval: '30s' }])
    expect(matches(monitor.spec.selector.matchLabels, only(objects, 'Service', 'queen').metadata.labels)).toBe(true)
    expect(matches(monitor.spec.selector.matchLabels, only(objects, 'Service', 'queen-mesh').metadata.labels)).toBe(
      false,
    )
  })

  it('takes every secret from existingSecret values, rendering no Secret of its own', async () => {
    const objects = await render(EXISTING_SECRETS)
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([])
    const container = brokerContainer(objects)
    const fromSecret = (name: string) => envEntry(container, name)?.valueFrom?.secretKeyRef
    expect(fromSecret('PG_PASSWORD')).toEqual({ name: 'ops-postgres', key: 'password' })
    expect(fromSecret('QUEEN_SYNC_SECRET')).toEqual({ name: 'ops-mesh', key: 'sync-secret' })
    expect(fromSecret('QUEEN_ENCRYPTION_KEY')).toEqual({ name: 'ops-encryption', key: 'encryption-key' })
    expect(fromSecret('JWT_SECRET')).toEqual({ name: 'ops-jwt', key: 'hs256' })
    expect(envValue(objects, 'PG_USE_SSL')).toBe('true')
    expect(envValue(objects, 'PG_SSL_REJECT_UNAUTHORIZED')).toBe('true')
    const caPath = envValue(objects, 'PG_SSL_CA')!
    const caMount = (container.volumeMounts as any[]).find((mount) => caPath.startsWith(`${mount.mountPath}/`))
    const caVolume = (only(objects, 'StatefulSet').spec.template.spec.volumes as any[]).find(
      (volume) => volume.name === caMount?.name,
    )
    expect(caVolume?.secret?.secretName).toBe('ops-postgres-ca')
    // The helm test pod mints its token from the same HS256 secret.
    const testPod = only(objects, 'Pod')
    expect(testPod.metadata.annotations['helm.sh/hook']).toBe('test')
    expect(envEntry(testPod.spec.containers[0], 'JWT_SECRET').valueFrom.secretKeyRef).toEqual({
      name: 'ops-jwt',
      key: 'hs256',
    })
  })

  it('NOTES carry the verification commands', async () => {
    const install = await helm(['install', 'queen', CHART, '--namespace', 'queen', '--dry-run=client'], HOST_ONLY)
    expect(install.code, install.stderr).toBe(0)
    const notes = install.stdout.slice(install.stdout.indexOf('NOTES:'))
    for (const command of [
      'kubectl -n queen rollout status statefulset/queen',
      "kubectl -n queen logs queen-0 | grep -E 'schema|config:|listening|mesh'",
      'kubectl -n queen exec queen-0 -- queenctl mesh status',
      'helm -n queen test queen',
    ]) {
      expect(notes).toContain(command)
    }
  })
})
