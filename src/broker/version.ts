/** The version of this build, read once from package.json (src/ and dist/ both sit two levels below it). */
import { readFileSync } from 'node:fs'

export const BROKER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version
