/** Registry of resources a test opened (brokers, pools), checked by leak-check.ts after each test. */
const open = new Map<number, string>()
let nextId = 1

/** Registers a resource; call the returned function when it is closed. */
export function trackResource(name: string): () => void {
  const id = nextId++
  open.set(id, name)
  return () => {
    open.delete(id)
  }
}

/** Names of the resources still open. */
export function openResources(): string[] {
  return [...open.values()]
}
