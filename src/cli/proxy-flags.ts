/** Flags shared by the gateway's management commands (docs/gateway.md, "Managing tenants and keys"). */
import { Flags } from '@oclif/core'

export const gatewayPgUrlFlag = Flags.string({
  description:
    "the gateway's PostgreSQL URL (default: PROXY_PG_* variables, then the embedded server of PROXY_DATA_DIR)",
})
