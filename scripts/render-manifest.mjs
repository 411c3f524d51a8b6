// Renders deploy/kubernetes/queen.yaml, the reference manifest for installs without Helm, from the chart
// (deploy/helm/queen) with deploy/kubernetes/values.yaml. A test renders it again and fails when the
// committed copy differs: run `node scripts/render-manifest.mjs` and commit the file after changing either.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { kubeTool } from './kube-tools.mjs'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const manifestPath = path.join(repoRoot, 'deploy', 'kubernetes', 'queen.yaml')

const header = `# Queen reference manifest (docs/deploy.md, "Kubernetes without Helm"): 3 brokers in namespace queen on the PostgreSQL at
# queen-pg. Generated from deploy/helm/queen with deploy/kubernetes/values.yaml by
# \`node scripts/render-manifest.mjs\`; edit the chart or those values, not this file. docs/deploy.md explains it.
#
# Create the namespace and the Secret first (a mesh secret of 32 random bytes, identical for every broker):
#   kubectl create namespace queen
#   kubectl -n queen create secret generic queen-secrets \\
#     --from-literal=pg-password='<the password of PostgreSQL role queen>' \\
#     --from-literal=sync-secret="$(head -c 32 /dev/urandom | base64)"
#   kubectl apply -f deploy/kubernetes/queen.yaml
# After changing the Secret: kubectl -n queen rollout restart statefulset/queen
`

/** The manifest's text: the header, then every object helm renders, in helm's order. */
export function renderReferenceManifest() {
  const rendered = execFileSync(
    kubeTool('helm'),
    [
      'template',
      'queen',
      path.join(repoRoot, 'deploy', 'helm', 'queen'),
      '--namespace',
      'queen',
      '--values',
      path.join(repoRoot, 'deploy', 'kubernetes', 'values.yaml'),
    ],
    { encoding: 'utf8' },
  )
  return header + rendered
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(manifestPath, renderReferenceManifest())
  process.stdout.write(`wrote ${path.relative(repoRoot, manifestPath)}\n`)
}
