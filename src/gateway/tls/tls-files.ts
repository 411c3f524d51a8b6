/**
 * The gateway's certificate and key (docs/gateway.md, "TLS"): read from the files PROXY_TLS_CERT and PROXY_TLS_KEY
 * name, and checked as a pair before they are used, at boot and on every SIGHUP. A problem names the variable, so
 * a boot refuses with it and a reload keeps the certificate in use.
 */
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createSecureContext } from 'node:tls'
import { ConfigError } from '../../platform/config/config-error.js'

/** Where the certificate chain and its key are. */
export interface TlsPaths {
  readonly certFile: string
  readonly keyFile: string
}

/** A certificate chain and its key, checked as a pair. */
export interface TlsFiles {
  readonly cert: Buffer
  readonly key: Buffer
  /** The leaf certificate's subject and expiry, for the log. */
  readonly subject: string
  readonly validTo: string
}

function readOrProblem(variable: string, file: string, problems: string[]): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch (error) {
    problems.push(`config error: ${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    return undefined
  }
}

/** Reads and checks both files; throws a ConfigError whose problems name the variable at fault. */
export function loadTlsFiles(paths: TlsPaths): TlsFiles {
  const problems: string[] = []
  const cert = readOrProblem('PROXY_TLS_CERT', paths.certFile, problems)
  const key = readOrProblem('PROXY_TLS_KEY', paths.keyFile, problems)
  if (!cert || !key) throw new ConfigError(problems)
  let leaf: X509Certificate
  try {
    leaf = new X509Certificate(cert)
  } catch (error) {
    throw new ConfigError([
      `config error: PROXY_TLS_CERT: ${paths.certFile} is not a PEM certificate (${(error as Error).message})`,
    ])
  }
  try {
    createSecureContext({ cert, key })
  } catch (error) {
    const reason = (error as Error).message
    const mismatch = /mismatch/i.test(reason)
    throw new ConfigError([
      mismatch
        ? `config error: PROXY_TLS_KEY: ${paths.keyFile} is not the key of the certificate in PROXY_TLS_CERT`
        : `config error: PROXY_TLS_KEY: ${paths.keyFile} is not a usable PEM private key (${reason})`,
    ])
  }
  return { cert, key, subject: leaf.subject.replace(/\n/g, ', '), validTo: leaf.validTo }
}
