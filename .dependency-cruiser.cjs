// Layering of src/ (ARCHITECTURE.md, "Layers"), checked by `npm run lint` with dependency-cruiser: it reads
// the real import graph (type imports included) and names the rule an import breaks.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-is-the-floor',
      comment: 'src/platform is shared by every server and the CLI: it imports nothing above it.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(broker|gateway|cli|commands|ui)/' },
    },
    {
      name: 'servers-stand-alone',
      comment:
        'The broker and the gateway are two servers over src/platform: neither imports the other, the CLI, its commands or a UI (ARCHITECTURE.md, "A new server").',
      severity: 'error',
      from: { path: '^src/gateway/' },
      to: { path: '^src/(broker|cli|commands|ui)/' },
    },
    {
      name: 'broker-never-imports-the-gateway',
      comment:
        'The broker knows nothing of the gateway in front of it; it trusts the tenancy header (docs/operations.md, "Tenancy").',
      severity: 'error',
      from: { path: '^src/broker/' },
      to: { path: '^src/gateway/' },
    },
    {
      name: 'wire-imports-nothing',
      comment:
        'src/wire holds the HTTP answer shapes the broker, the CLI and the dashboard share: types only, importing nothing outside itself.',
      severity: 'error',
      from: { path: '^src/wire/' },
      to: { pathNot: '^src/wire/' },
    },
    {
      name: 'broker-never-imports-the-cli',
      comment:
        'The broker runs without the CLI or a terminal UI: src/broker never imports src/cli, src/commands or src/ui.',
      severity: 'error',
      from: { path: '^src/broker/' },
      to: { path: '^src/(cli|commands|ui)/' },
    },
    {
      name: 'engine-never-imports-http',
      comment: 'Engines return outcomes, never wire shapes: src/broker/engine never imports src/broker/http.',
      severity: 'error',
      from: { path: '^src/broker/engine/' },
      to: { path: '^src/broker/http/' },
    },
    {
      name: 'observe-is-a-leaf',
      comment:
        'Observability is read by everyone, so it imports nothing that imports it: only the platform, the configuration, the database helpers and the small shared modules.',
      severity: 'error',
      from: { path: '^src/broker/observe/' },
      to: {
        path: '^src/broker/',
        pathNot: '^src/broker/(observe|config|db|ids\\.ts|errors\\.ts|version\\.ts)',
      },
    },
    {
      name: 'crypto-below-the-engines',
      comment: 'Encryption is a service the engines call: src/broker/crypto never imports src/broker/engine.',
      severity: 'error',
      from: { path: '^src/broker/crypto/' },
      to: { path: '^src/broker/engine/' },
    },
    {
      name: 'auth-below-http',
      comment: 'HTTP hooks call authentication, never the reverse: src/broker/auth never imports src/broker/http.',
      severity: 'error',
      from: { path: '^src/broker/auth/' },
      to: { path: '^src/broker/http/' },
    },
    {
      name: 'top-logic-without-react',
      comment:
        'The pure polling and view logic of `top` is tested without a renderer: src/cli/top never imports React or Ink.',
      severity: 'error',
      from: { path: '^src/cli/top/' },
      to: { path: '(^src/ui/|node_modules/(react|ink)/)' },
    },
    {
      name: 'dashboard-takes-only-the-wire',
      comment:
        'The dashboard is a browser bundle that talks to the broker over HTTP: of the repository it imports only src/wire, the answer types.',
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { path: '^(src|test|scripts|bin)/', pathNot: '^src/wire/' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle between modules makes load order matter and layers meaningless.',
      severity: 'error',
      from: { path: '^(src|dashboard)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^(dist|node_modules)/' },
  },
}
