/**
 * A server's registry of runtime statements (docs/conventions.md, "SQL lives in .sql files"): one `.sql`
 * file per statement, each mapped to a typed name. Every file is read when the registry is built, so a
 * missing file fails the boot rather than the first request that needs it.
 */
import { readFileSync } from 'node:fs'
import type { Statement } from './pool.js'

/** Every statement of a registry by name, with the file it came from. */
export interface SqlRegistry<Name extends string> {
  /** The statement (name and text) registered as `name`. */
  readonly statements: Readonly<Record<Name, Statement>>
  /** The file each statement was read from (for the statement check test). */
  readonly files: Readonly<Record<Name, string>>
}

/** Reads `files` (name -> file name) from the folder `dir` (a file URL ending in `/`). */
export function loadSqlRegistry<Name extends string>(
  dir: URL,
  files: Readonly<Record<Name, string>>,
): SqlRegistry<Name> {
  const statements: Partial<Record<Name, Statement>> = {}
  for (const [name, file] of Object.entries(files) as [Name, string][]) {
    statements[name] = Object.freeze({ name, text: readFileSync(new URL(file, dir), 'utf8') })
  }
  return { statements: Object.freeze(statements as Record<Name, Statement>), files }
}
