/**
 * Where a process's resident memory is, from /proc/<pid>/smaps (issue 39, part 1): the mappings' RSS summed by
 * what they hold. The kinds are read from each mapping's backing and alignment, as Linux shows them:
 * - the Node.js executable's pages (its code and read-only data: V8, the compilers, built-in JavaScript, ICU);
 * - V8's heap: anonymous mappings aligned to 256 KiB, V8's page size (large objects included);
 * - V8's code space: anonymous mappings that are writable and executable;
 * - malloc: the main heap (`[heap]`) and glibc's arenas (anonymous, aligned to 64 MiB), where Buffers, pg's
 *   and the HTTP parser's memory live (blocks above MALLOC_MMAP_THRESHOLD_ fall under "other");
 * - shared libraries and other files; and the other anonymous mappings (thread stacks, large malloc blocks).
 */
import { readFileSync, readlinkSync } from 'node:fs'

/** MB per kind of memory; `total` is the process's RSS. */
export interface MemoryMap {
  total: number
  nodeBinary: number
  v8Heap: number
  v8Code: number
  malloc: number
  libraries: number
  otherAnonymous: number
}

/** The kinds of {@link MemoryMap} in the order the report lists them, with their labels. */
export const MEMORY_KINDS: readonly [Exclude<keyof MemoryMap, 'total'>, string][] = [
  ['nodeBinary', 'node binary'],
  ['v8Heap', 'V8 heap'],
  ['v8Code', 'V8 code'],
  ['malloc', 'malloc'],
  ['otherAnonymous', 'other anonymous'],
  ['libraries', 'libraries'],
]

const V8_PAGE = 256 * 1024
const MALLOC_ARENA = 64 * 1024 * 1024
const MAPPING = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/

/** The process's memory by kind, or undefined when it is gone. */
export function memoryMap(pid: number): MemoryMap | undefined {
  let smaps: string
  let executable: string
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8')
    executable = readlinkSync(`/proc/${pid}/exe`)
  } catch {
    return undefined
  }
  const kb: MemoryMap = { total: 0, nodeBinary: 0, v8Heap: 0, v8Code: 0, malloc: 0, libraries: 0, otherAnonymous: 0 }
  let kind: keyof MemoryMap = 'otherAnonymous'
  for (const line of smaps.split('\n')) {
    const mapping = MAPPING.exec(line)
    if (mapping) {
      kind = kindOf(BigInt(`0x${mapping[1] ?? 0}`), mapping[3] ?? '', mapping[4] ?? '', executable)
      continue
    }
    if (!line.startsWith('Rss:')) continue
    const rss = Number(line.slice(4).trim().split(/\s+/)[0])
    kb[kind] += rss
    kb.total += rss
  }
  const mb = {} as MemoryMap
  for (const key of Object.keys(kb) as (keyof MemoryMap)[]) mb[key] = kb[key] / 1024
  return mb
}

function kindOf(start: bigint, permissions: string, name: string, executable: string): keyof MemoryMap {
  if (name === executable) return 'nodeBinary'
  if (name.startsWith('/')) return 'libraries'
  if (name === '[heap]') return 'malloc'
  if (name !== '') return 'otherAnonymous'
  if (permissions.includes('x')) return 'v8Code'
  if (start % BigInt(MALLOC_ARENA) === 0n) return 'malloc'
  if (start % BigInt(V8_PAGE) === 0n) return 'v8Heap'
  return 'otherAnonymous'
}
