/**
 * Changes to the contexts file (docs/cli.md, "The contexts file"): set, use and delete a context. The file is edited as
 * a YAML document, so keys we do not know (at the top and inside contexts), their order and the comments survive and a
 * file shared with the Go CLI stays readable by it. Writes are atomic (a temporary file in the same directory, then
 * rename), the file is 0600 and a directory we create is 0700.
 */
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { Document, isMap, isSeq, parseDocument, type YAMLMap, type YAMLSeq } from 'yaml'
import { parseContextsFile, type ContextEntry } from './contexts.js'
import { EXIT, UserError } from './errors.js'

/** The string fields of a context that `set-context` writes. */
export const CONTEXT_STRING_FIELDS = ['server', 'token-ref', 'tenant', 'tenancy-header', 'database'] as const

/** What `set-context` changes: a string sets the key, an empty string removes it, undefined leaves it. */
export type ContextChanges = Partial<Record<(typeof CONTEXT_STRING_FIELDS)[number], string>> & { insecure?: boolean }

/** The editable contexts file. */
export interface ContextsDocument {
  file: string
  document: Document
  /** False when the file did not exist yet. */
  existed: boolean
}

/** Reads the contexts file for editing; a missing file is an empty document. Malformed files are refused. */
export async function loadContextsDocument(file: string): Promise<ContextsDocument> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { file, document: new Document({ contexts: [] }), existed: false }
    throw new UserError(`cannot read ${file}: ${code ?? (error as Error).message}`, {
      hint: 'point --config / QUEEN_CONFIG at a readable file',
    })
  }
  // The reader's checks first, so an edit never starts from a file the other commands would refuse.
  parseContextsFile(text, file)
  const document = parseDocument(text)
  if (!isMap(document.contents)) document.contents = document.createNode({}) as unknown as typeof document.contents
  return { file, document, existed: true }
}

function contextsSeq(document: Document): YAMLSeq {
  const current = document.get('contexts')
  if (isSeq(current)) return current
  const created = document.createNode([]) as YAMLSeq
  document.set('contexts', created)
  return created
}

function findContext(document: Document, name: string): { seq: YAMLSeq; index: number } {
  const seq = contextsSeq(document)
  const index = seq.items.findIndex((item) => isMap(item) && item.get('name') === name)
  return { seq, index }
}

/** The names of the contexts in the document, in file order. */
export function contextNames(document: Document): string[] {
  return contextsSeq(document)
    .items.filter(isMap)
    .map((item) => String(item.get('name')))
}

function unknownContext(doc: ContextsDocument, name: string): UserError {
  const known = contextNames(doc.document)
  return new UserError(`context "${name}" not found in ${doc.file}`, {
    exitCode: EXIT.user,
    hint: known.length > 0 ? `known contexts: ${known.join(', ')}` : 'create one with queenctl config set-context',
  })
}

/** The plain object of one context of the document. */
function contextObject(map: YAMLMap): ContextEntry {
  return map.toJSON() as ContextEntry
}

/**
 * Creates the context or changes the given fields of an existing one, leaving its other keys alone.
 * Returns the resulting entry and whether it was created.
 */
export function setContext(
  doc: ContextsDocument,
  name: string,
  changes: ContextChanges,
): { context: ContextEntry; created: boolean } {
  const { seq, index } = findContext(doc.document, name)
  let map: YAMLMap
  const created = index === -1
  if (created) {
    map = doc.document.createNode({ name })
    seq.add(map)
  } else {
    map = seq.items[index] as YAMLMap
  }
  for (const key of CONTEXT_STRING_FIELDS) {
    const value = changes[key]
    if (value === undefined) continue
    if (value === '') map.delete(key)
    else map.set(key, value)
  }
  if (changes.insecure !== undefined) map.set('insecure', changes.insecure)
  return { context: contextObject(map), created }
}

/** Makes `name` the current context; an unknown name is a user error. */
export function useContext(doc: ContextsDocument, name: string): ContextEntry {
  const { seq, index } = findContext(doc.document, name)
  if (index === -1) throw unknownContext(doc, name)
  doc.document.set('current-context', name)
  return contextObject(seq.items[index] as YAMLMap)
}

/**
 * Removes the context; when it was the current one, current-context is removed too (a dangling name would
 * make every other command fail). Returns the removed entry and whether it was current.
 */
export function deleteContext(doc: ContextsDocument, name: string): { context: ContextEntry; wasCurrent: boolean } {
  const { seq, index } = findContext(doc.document, name)
  if (index === -1) throw unknownContext(doc, name)
  const context = contextObject(seq.items[index] as YAMLMap)
  seq.delete(index)
  const wasCurrent = doc.document.get('current-context') === name
  if (wasCurrent) doc.document.delete('current-context')
  return { context, wasCurrent }
}

/**
 * Writes the document atomically: a 0600 temporary file beside the target, flushed, then renamed over it.
 * A missing directory is created 0700; an existing one keeps its mode (it may be shared, like /tmp).
 */
export async function writeContextsDocument(doc: ContextsDocument): Promise<void> {
  const directory = path.dirname(doc.file)
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 })
  } catch (error) {
    throw writeError(doc.file, error)
  }
  const temporary = path.join(directory, `.${path.basename(doc.file)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    const handle = await open(temporary, 'wx', 0o600)
    try {
      await handle.writeFile(doc.document.toString(), 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    // The umask cannot loosen 0600, but an explicit chmod makes the mode independent of it.
    await chmod(temporary, 0o600)
    await rename(temporary, doc.file)
  } catch (error) {
    await rm(temporary, { force: true })
    throw writeError(doc.file, error)
  }
}

function writeError(file: string, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
  return new UserError(`cannot write ${file}: ${code}`, {
    exitCode: EXIT.user,
    hint: 'check the permissions of the file and its directory, or point --config / QUEEN_CONFIG elsewhere',
  })
}
