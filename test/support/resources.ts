/**
 * Registry of resources a test opened (brokers, pools), checked by leak-check.ts: a resource opened inside
 * a test must be closed by the end of that test, one opened in beforeAll by the end of the file.
 */
import { expect } from 'vitest'

interface Resource {
  name: string
  /** The test that opened it, or undefined for file-level hooks. */
  test: string | undefined
}

const open = new Map<number, Resource>()
let nextId = 1

/** Registers a resource; call the returned function when it is closed. */
export function trackResource(name: string): () => void {
  const id = nextId++
  open.set(id, { name, test: expect.getState().currentTestName })
  return () => {
    open.delete(id)
  }
}

/** Names of the resources still open, optionally only those opened by one test. */
export function openResources(test?: string): string[] {
  return [...open.values()].filter((resource) => test === undefined || resource.test === test).map((r) => r.name)
}
