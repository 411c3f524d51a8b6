/**
 * Preloaded into the broker by bench/alloc-profile.ts (`NODE_OPTIONS=--import`): each SIGUSR2 starts or stops
 * V8's sampling heap profiler. It counts objects the garbage collector has already freed too, so a window's
 * profile is what the broker allocated in it, not what it kept. Each stop writes `<BENCH_ALLOC_OUT>.<n>`.
 */
import { Session } from 'node:inspector'
import { renameSync, writeFileSync } from 'node:fs'

const session = new Session()
session.connect()
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))

let sampling = false
let written = 0
process.on('SIGUSR2', () => {
  void toggle().catch((error) => process.stderr.write(`alloc-sampler: ${error}\n`))
})

async function toggle() {
  if (!sampling) {
    sampling = true
    await post('HeapProfiler.enable')
    await post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    })
    return
  }
  sampling = false
  const { profile } = await post('HeapProfiler.stopSampling')
  const out = `${process.env.BENCH_ALLOC_OUT}.${++written}`
  writeFileSync(`${out}.tmp`, JSON.stringify(profile))
  renameSync(`${out}.tmp`, out)
}
