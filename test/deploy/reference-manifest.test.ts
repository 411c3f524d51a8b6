/**
 * deploy/kubernetes/queen.yaml, the manifest for installs without Helm (docs/deploy.md, "Kubernetes without Helm"):
 * rendered from the chart, so the committed copy must be what the chart renders today, and valid as Kubernetes objects.
 */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { manifestPath, renderReferenceManifest } from '../../scripts/render-manifest.mjs'
import { brokerContainer, only, parseObjects, schemaProblems } from './support/helm.js'
import { describeDeployTier } from './support/tier.js'

describeDeployTier('the reference manifest', ['helm'], () => {
  const committed = () => readFileSync(manifestPath as string, 'utf8')

  it('is what the chart renders with deploy/kubernetes/values.yaml', () => {
    const fresh = (renderReferenceManifest() as string).split('\n')
    const lines = committed().split('\n')
    const firstDifference = fresh.findIndex((line, index) => line !== lines[index])
    const where =
      firstDifference < 0
        ? ''
        : `line ${firstDifference + 1}: committed ${JSON.stringify(lines[firstDifference])}, rendered ${JSON.stringify(fresh[firstDifference])}`
    expect(where, 'run node scripts/render-manifest.mjs and commit deploy/kubernetes/queen.yaml').toBe('')
    expect(fresh.length).toBe(lines.length)
  })

  it('holds the objects of the reference, valid, with no secret value and no helm test pod', () => {
    const objects = parseObjects(committed())
    expect(schemaProblems(objects)).toEqual([])
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      'NetworkPolicy/queen',
      'PodDisruptionBudget/queen',
      'Service/queen',
      'Service/queen-mesh',
      'StatefulSet/queen',
    ])
    expect(objects.every((object) => object.metadata.namespace === 'queen')).toBe(true)
    expect(only(objects, 'StatefulSet').spec.replicas).toBe(3)
    // Every secret comes from the Secret queen-secrets that the header tells the operator to create.
    const fromSecrets = (brokerContainer(objects).env as any[])
      .filter((entry) => entry.valueFrom?.secretKeyRef)
      .map((entry) => [entry.name, entry.valueFrom.secretKeyRef])
    expect(fromSecrets).toEqual([
      ['PG_PASSWORD', { name: 'queen-secrets', key: 'pg-password' }],
      ['QUEEN_SYNC_SECRET', { name: 'queen-secrets', key: 'sync-secret' }],
    ])
    expect(committed()).toContain('kubectl -n queen create secret generic queen-secrets')
  })
})
