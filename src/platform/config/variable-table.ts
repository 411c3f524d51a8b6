/**
 * The shape of a server's variable table (docs/configuration.md): one row per environment variable with its
 * type, default, range and description. The broker's table is `src/broker/config/variables.ts`; parsing,
 * `env list` and the generated reference all read rows of this shape.
 */
/**
 * Facts about the machine that some defaults depend on. Passed in rather than read inside the parser,
 * so resolution stays pure and a test can ask "what would root on Linux get?".
 */
export interface HostFacts {
  /** `os.hostname()`: the default `QUEEN_SERVER_ID` (the pod name in Kubernetes). */
  readonly hostname: string
  /** The user's home directory: the default `QUEEN_DATA_DIR` lives under it. */
  readonly homedir: string
  /** Effective user id; 0 (root) changes the default `QUEEN_DATA_DIR`. -1 where unknown (Windows). */
  readonly uid: number
  /** `process.platform`: the default `FILE_BUFFER_DIR` differs on Linux. */
  readonly platform: NodeJS.Platform
  /** `os.tmpdir()`: the default `FILE_BUFFER_DIR` outside Linux. */
  readonly tmpdir: string
}

/** Fields every variable has. */
interface VariableCommon {
  /** The canonical name. */
  readonly name: string
  /** Older names accepted for the same setting; the canonical name wins when both are set. */
  readonly aliases?: readonly string[]
  /** One line for `queenctl env list`. */
  readonly description: string
  /** Never echoed: not in logs, not in error messages, `<set:N chars>` in listings. */
  readonly secret?: boolean
  /** The default as the spec writes it, when that is not simply the value (`env list` shows it). */
  readonly defaultText?: string
}

/** A whole number written as plain decimal digits, within `min`..`max` inclusive. */
export interface IntegerVariable extends VariableCommon {
  readonly type: 'integer'
  readonly default: number
  readonly min: number
  readonly max: number
}

/** A number in plain decimal notation (`2`, `2.5`), within `min`..`max` inclusive. */
export interface DecimalVariable extends VariableCommon {
  readonly type: 'decimal'
  readonly default: number
  readonly min: number
  readonly max: number
}

/** `true`/`false` in any letter case, `1` or `0`; nothing else. */
export interface BooleanVariable extends VariableCommon {
  readonly type: 'boolean'
  readonly default: boolean
}

/** One of `values`; matched in any letter case and stored in the spelling of `values`. */
export interface EnumVariable extends VariableCommon {
  readonly type: 'enum'
  readonly values: readonly string[]
  readonly default: string
}

/** Extra checks a string variable gets beyond "any non-empty text". */
export type StringFormat = 'aes-256-key' | 'header-name' | 'http-url'

/** Free text. No `default` means unset; a function default is computed from the host at resolve time. */
export interface StringVariable extends VariableCommon {
  readonly type: 'string'
  readonly default?: string | ((host: HostFacts) => string)
  readonly format?: StringFormat
}

/** One row of the table. */
export type VariableSpec = IntegerVariable | DecimalVariable | BooleanVariable | EnumVariable | StringVariable

/** The type of a variable, as `env list` shows it. */
export type VariableType = VariableSpec['type']

/** Optional fields of a row, given to the constructors below. */
export interface RowExtras {
  readonly aliases?: readonly string[]
  readonly secret?: boolean
  readonly defaultText?: string
  readonly format?: StringFormat
}

// Row constructors: one line per variable keeps a table readable. `const` type parameters keep names and
// enum values literal, so TableValues is typed per variable.
export function int<const N extends string>(
  name: N,
  def: number,
  min: number,
  max: number,
  description: string,
  x?: RowExtras,
) {
  return { name, type: 'integer', default: def, min, max, description, ...x } as const
}
export function dec<const N extends string>(name: N, def: number, min: number, max: number, description: string) {
  return { name, type: 'decimal', default: def, min, max, description } as const
}
export function bool<const N extends string>(name: N, def: boolean, description: string) {
  return { name, type: 'boolean', default: def, description } as const
}
export function oneOf<const N extends string, const V extends readonly string[]>(
  name: N,
  values: V,
  def: V[number],
  description: string,
  x?: RowExtras,
) {
  return { name, type: 'enum', values, default: def, description, ...x } as const
}
export function str<const N extends string>(
  name: N,
  def: string | ((host: HostFacts) => string),
  description: string,
  x?: RowExtras,
) {
  return { name, type: 'string', default: def, description, ...x } as const
}
/** A string variable with no default: unset unless the operator sets it. */
export function opt<const N extends string>(name: N, description: string, x?: RowExtras) {
  return { name, type: 'string', description, ...x } as const
}

export type ValueOf<R> = R extends { type: 'integer' | 'decimal' }
  ? number
  : R extends { type: 'boolean' }
    ? boolean
    : R extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : R extends { default: unknown }
        ? string
        : string | undefined

/** The parsed value of every variable of `Table`, typed from its rows (one without a default may be undefined). */
export type TableValues<Table extends readonly VariableSpec[]> = {
  readonly [R in Table[number] as R['name']]: ValueOf<R>
}
