// The few parts of the `oidc-provider` package (no types of its own) that test/support/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { RequestListener } from 'node:http'

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): RequestListener
  }
}
