/** Every invalid setting at once: the one error a server's configuration step throws (docs/configuration.md). */
export class ConfigError extends Error {
  /** One `config error: ...` line per problem. */
  readonly problems: readonly string[]
  /** Warnings found on the way, so `env check` can show them too. */
  readonly warnings: readonly string[]
  constructor(problems: readonly string[], warnings: readonly string[] = []) {
    super(problems.join('\n'))
    this.name = 'ConfigError'
    this.problems = problems
    this.warnings = warnings
  }
}
