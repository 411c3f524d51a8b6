/**
 * The sign-in page (docs/gateway.md, "People: users, sessions and sign-in"), `GET /proxy/login?rd=<URL>`: a form that
 * posts to `/api/login` and then goes to `rd` when its host is allowed (redirects.ts), else to the dashboard at `/`.
 * Where ForwardAuth sends a browser without a session (`PROXY_AUTH_LOGIN_URL`).
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { GatewayConfig } from '../config/gateway-config.js'
import { afterSignIn } from './redirects.js'

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
}

export function loginPageHtml(next: string, nonce: string, oidc: boolean): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in - Queen</title>
<style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem}
label,input,button{display:block;width:100%;margin:.4rem 0}input{padding:.4rem}#error{color:#b00020}</style></head>
<body><h1>Sign in</h1>
<form id="login"><label>User name <input id="username" name="username" autocomplete="username" required></label>
<label>Password <input id="password" name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button><p id="error" role="alert"></p></form>
${oidc ? '<p><a id="oidc" href="/proxy/oidc/start">Sign in with your identity provider</a></p>' : ''}
<script nonce="${nonce}">
const next = ${scriptJson(next)};
const oidcLink = document.getElementById('oidc');
if (oidcLink) oidcLink.href = '/proxy/oidc/start?rd=' + encodeURIComponent(next);
document.getElementById('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = JSON.stringify({ username: document.getElementById('username').value, password: document.getElementById('password').value });
  const answer = await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body, credentials: 'same-origin' });
  if (answer.ok) { window.location.assign(next); return; }
  const problem = await answer.json().catch(() => ({}));
  document.getElementById('error').textContent = problem.error || ('sign-in failed: ' + answer.status);
});
</script></body></html>
`
}

export function registerLoginPage(app: FastifyInstance, config: GatewayConfig['people'], oidc: () => boolean): void {
  app.get('/proxy/login', (request, reply) => {
    const rd = (request.query as Record<string, unknown> | undefined)?.rd
    const next = afterSignIn(typeof rd === 'string' ? rd : undefined, config.redirectAllowlist)
    const nonce = randomBytes(16).toString('base64')
    return reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      })
      .send(loginPageHtml(next, nonce, oidc()))
  })
}
