/**
 * Global flags in any position (docs/cli.md, "Compatibility with the Go queenctl"): the Go CLI takes its persistent
 * flags before the subcommand as well as after it (`queenctl --server URL ping`), oclif only after the command id.
 * Before oclif parses, the global flags found anywhere before `--` are moved behind the command id; a global flag the
 * command does not take (`--server` on `config view`) is dropped, as the Go CLI ignores a persistent flag a command
 * does not read. `--help` and `--version` are left where they are. A boolean written `--wait=false`, as pflag takes
 * it, becomes `--no-wait`.
 */

/** A global flag: its long name, short letter and whether it takes a value. */
interface GlobalFlag {
  name: string
  char?: string
  value: boolean
}

/** The Go CLI's persistent flags plus ours (docs/cli.md, "Global flags"). */
const GLOBAL_FLAGS: readonly GlobalFlag[] = [
  { name: 'context', value: true },
  { name: 'server', value: true },
  { name: 'token', value: true },
  { name: 'tenant', value: true },
  { name: 'config', value: true },
  { name: 'output', char: 'o', value: true },
  { name: 'timeout', value: true },
  { name: 'insecure', value: false },
  { name: 'no-insecure', value: false },
  { name: 'color', value: false },
  { name: 'no-color', value: false },
  { name: 'quiet', char: 'q', value: false },
  { name: 'no-headers', value: false },
  { name: 'json', value: false },
  { name: 'debug', value: false },
]

/** What the rewrite needs to know of a command (a subset of an oclif manifest entry). */
export interface CommandShape {
  aliases?: string[]
  hiddenAliases?: string[]
  flags: Record<string, { name: string; char?: string; allowNo?: boolean; type?: string; aliases?: string[] }>
}

/** One global flag occurrence: its tokens as typed and the manifest flag name it sets. */
interface Occurrence {
  tokens: string[]
  flag: string
}

function matchGlobal(token: string): { flag: GlobalFlag; inline: boolean } | undefined {
  for (const flag of GLOBAL_FLAGS) {
    if (token === `--${flag.name}`) return { flag, inline: false }
    if (flag.value && token.startsWith(`--${flag.name}=`)) return { flag, inline: true }
    if (flag.char !== undefined) {
      if (token === `-${flag.char}`) return { flag, inline: false }
      if (flag.value && token.startsWith(`-${flag.char}`) && token.length > 2) return { flag, inline: true }
    }
  }
  return undefined
}

/** The manifest flag a global flag sets (`--no-color` sets `color`, which allows --no-). */
function manifestName(flag: GlobalFlag): string {
  return flag.name === 'no-color' || flag.name === 'no-insecure' ? flag.name.slice(3) : flag.name
}

/** The command id the leading words name (longest match, aliases included), with the number of words it took. */
function findCommand(
  words: string[],
  commands: Record<string, CommandShape>,
): { shape: CommandShape; length: number } | undefined {
  const byId = new Map<string, CommandShape>()
  for (const [id, shape] of Object.entries(commands)) {
    byId.set(id, shape)
    for (const alias of [...(shape.aliases ?? []), ...(shape.hiddenAliases ?? [])]) byId.set(alias, shape)
  }
  for (let length = words.length; length > 0; length -= 1) {
    const shape = byId.get(words.slice(0, length).join(':'))
    if (shape) return { shape, length }
  }
  return undefined
}

/** The argv oclif gets: global flags moved behind the command id, or dropped where the command does not take them. */
export function rewriteGlobalFlags(argv: readonly string[], commands: Record<string, CommandShape>): string[] {
  const dashDash = argv.indexOf('--')
  const head = dashDash === -1 ? [...argv] : argv.slice(0, dashDash)
  const tail = dashDash === -1 ? [] : argv.slice(dashDash)
  const globals: Occurrence[] = []
  const rest: string[] = []
  for (let index = 0; index < head.length; index += 1) {
    const token = head[index]!
    const match = matchGlobal(token)
    if (!match) {
      rest.push(token)
      continue
    }
    const tokens = [token]
    if (match.flag.value && !match.inline && index + 1 < head.length) tokens.push(head[(index += 1)]!)
    globals.push({ tokens, flag: manifestName(match.flag) })
  }
  let words = 0
  while (words < rest.length && !rest[words]!.startsWith('-')) words += 1
  const found = findCommand(rest.slice(0, words), commands)
  // No command (`queenctl --version`, `queenctl nosuch`): leave everything to oclif as typed, but words first
  // (`queenctl -o json nosuch` is an unknown command, not an unknown flag); global flags alone print the help.
  if (!found && rest.length === 0 && tail.length === 0) return []
  if (!found) return words === 0 ? [...argv] : [...rest, ...globals.flatMap((occurrence) => occurrence.tokens), ...tail]
  const kept = globals.filter((occurrence) => found.shape.flags[occurrence.flag] !== undefined)
  return [
    ...rest.slice(0, found.length),
    ...kept.flatMap((occurrence) => occurrence.tokens),
    ...rest.slice(found.length).flatMap((token) => booleanValue(token, found.shape)),
    ...tail,
  ]
}

/**
 * `--wait=false` / `--auto-ack=true`, the pflag form of a boolean: `--wait=true` is `--wait`, `--wait=false` is
 * `--no-wait` where the flag has a negation, and nothing (the default) where it has none.
 */
function booleanValue(token: string, shape: CommandShape): string[] {
  const match = /^--([a-z0-9-]+)=(true|false)$/.exec(token)
  // An alias (`--dlq=false` of --dead-letter-queue) is written with the flag's own name.
  const flag = match
    ? (shape.flags[match[1]!] ?? Object.values(shape.flags).find((entry) => entry.aliases?.includes(match[1]!)))
    : undefined
  if (!match || flag?.type !== 'boolean') return [token]
  if (match[2] === 'true') return [`--${flag.name}`]
  return flag.allowNo ? [`--no-${flag.name}`] : []
}
