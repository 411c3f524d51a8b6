/**
 * How the config commands show contexts: literal tokens are never printed (a `token-ref` that is a
 * literal shows as `literal:<redacted>` unless `--raw`), and the get-contexts table.
 */
import type { ContextEntry, ContextsFile } from './contexts.js'
import type { Column } from './output.js'

/** What a literal token reference prints as. */
export const REDACTED_LITERAL = 'literal:<redacted>'

/** True for a token-ref that carries the token itself (`literal:x` or a bare string). */
export function isLiteralTokenRef(ref: string | undefined): boolean {
  if (ref === undefined || ref.trim() === '') return false
  return !(ref === 'env' || ref.startsWith('env:') || ref.startsWith('file://') || ref.startsWith('keychain://'))
}

/** The token-ref as it may be shown. */
export function shownTokenRef(ref: string | undefined): string | undefined {
  return isLiteralTokenRef(ref) ? REDACTED_LITERAL : ref
}

/** The context with a literal token replaced (every other key, unknown ones included, unchanged). */
export function redactContext(context: ContextEntry): ContextEntry {
  if (!isLiteralTokenRef(context['token-ref'])) return context
  return { ...context, 'token-ref': REDACTED_LITERAL }
}

/** The whole file with literal tokens replaced. */
export function redactContextsFile(file: ContextsFile): ContextsFile {
  return { ...file, contexts: file.contexts.map(redactContext) }
}

/** One row of `config get-contexts`. */
export interface ContextRow {
  current: boolean
  name: string
  server: string | null
  tenant: string | null
  tokenRef: string | null
  insecure: boolean
  tenancyHeader: string | null
  database: string | null
}

/** The rows of `config get-contexts`, in file order. */
export function contextRows(file: ContextsFile): ContextRow[] {
  return file.contexts.map((context) => ({
    current: context.name === file['current-context'],
    name: context.name,
    server: context.server ?? null,
    tenant: context.tenant ?? null,
    tokenRef: shownTokenRef(context['token-ref']) ?? null,
    insecure: context.insecure === true,
    tenancyHeader: context['tenancy-header'] ?? null,
    database: context.database ?? null,
  }))
}

export const CONTEXT_COLUMNS: Column<ContextRow>[] = [
  { header: 'CURRENT', value: (row) => (row.current ? '*' : '') },
  { header: 'NAME', value: (row) => row.name },
  { header: 'SERVER', value: (row) => row.server },
  { header: 'TENANT', value: (row) => row.tenant },
  { header: 'TOKEN-REF', value: (row) => row.tokenRef },
  { header: 'INSECURE', value: (row) => (row.insecure ? 'true' : 'false'), wide: true },
  { header: 'TENANCY HEADER', value: (row) => row.tenancyHeader, wide: true },
  { header: 'DATABASE', value: (row) => row.database, wide: true },
]
