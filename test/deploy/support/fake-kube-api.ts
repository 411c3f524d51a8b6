/**
 * Just enough of a Kubernetes API server for `helm template --dry-run=server`: version and discovery for
 * the kinds the chart renders, and GET of the objects a test stored, so the chart's `lookup` reads what a
 * cluster would hold (the Secret of an earlier install). Everything else is 404. Plain HTTP on loopback,
 * reached through a kubeconfig file of its own.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import path from 'node:path'
import { trackResource } from '../../support/resources.js'
import type { KubeObject } from './helm.js'

/** apiVersion → the kinds served, with their plural resource names. */
const KINDS: Record<string, [plural: string, kind: string][]> = {
  v1: [
    ['secrets', 'Secret'],
    ['services', 'Service'],
    ['pods', 'Pod'],
  ],
  'apps/v1': [['statefulsets', 'StatefulSet']],
  'networking.k8s.io/v1': [['networkpolicies', 'NetworkPolicy']],
  'policy/v1': [['poddisruptionbudgets', 'PodDisruptionBudget']],
}

/** A running fake API server. */
export interface FakeKubeApi {
  /** Path of a kubeconfig pointing at it. */
  kubeconfig: string
  /** Stores (or replaces) an object, as an earlier install would have created it. */
  put(object: KubeObject): void
  close(): Promise<void>
}

function objectPath(apiVersion: string, kind: string, namespace: string, name: string): string {
  const plural = KINDS[apiVersion]?.find(([, candidate]) => candidate === kind)?.[0]
  if (!plural) throw new Error(`fake API: ${apiVersion} ${kind} is not served`)
  const prefix = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`
  return `${prefix}/namespaces/${namespace}/${plural}/${name}`
}

export async function startFakeKubeApi(): Promise<FakeKubeApi> {
  const objects = new Map<string, KubeObject>()
  const groups = Object.keys(KINDS)
    .filter((apiVersion) => apiVersion.includes('/'))
    .map((groupVersion) => {
      const [name, version] = groupVersion.split('/') as [string, string]
      return { name, versions: [{ groupVersion, version }], preferredVersion: { groupVersion, version } }
    })
  const server = createServer((request, response) => {
    const url = (request.url ?? '').split('?')[0]!
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (request.method !== 'GET') return send(405, { kind: 'Status', status: 'Failure', code: 405 })
    if (url === '/version')
      return send(200, { major: '1', minor: '33', gitVersion: 'v1.33.0', platform: 'linux/amd64' })
    if (url === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'] })
    if (url === '/apis') return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups })
    for (const [apiVersion, kinds] of Object.entries(KINDS)) {
      if (url === (apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`)) {
        return send(200, {
          kind: 'APIResourceList',
          groupVersion: apiVersion,
          resources: kinds.map(([name, kind]) => ({ name, kind, namespaced: true, singularName: '', verbs: ['get'] })),
        })
      }
    }
    const found = objects.get(url)
    if (found) return send(200, found)
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const dir = await mkdtemp('/tmp/queenctl-fake-kube-')
  const kubeconfig = path.join(dir, 'kubeconfig')
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: fake, cluster: {server: "http://127.0.0.1:${port}"}}]`,
      'users: [{name: fake, user: {}}]',
      'contexts: [{name: fake, context: {cluster: fake, user: fake}}]',
      'current-context: fake',
      '',
    ].join('\n'),
  )
  const untrack = trackResource(`fake Kubernetes API :${port}`)
  return {
    kubeconfig,
    put(object) {
      objects.set(objectPath(object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name), object)
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(dir, { recursive: true, force: true })
      untrack()
    },
  }
}
