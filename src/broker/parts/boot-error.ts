/** Raised when the boot cannot continue (exit code 1 for configuration, 2 for runtime). */
export class BootError extends Error {
  readonly exitCode: number

  constructor(message: string, exitCode: number, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BootError'
    this.exitCode = exitCode
  }
}
