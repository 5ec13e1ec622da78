/**
 * The layer rule of docs/architecture.md, checked over the real import graph by `npm run lint`
 * (so by `npm test`). Type-only imports count: a circle of types is still a circle to read.
 *
 *   wiring    src/main.ts, app.ts, tenant-chatbots.ts, and src/deployment/ (configuration, secrets, logging)
 *   surfaces  src/surfaces/{slack,discord,shell}/ beside the shared budgets/ and surfaces/*.ts
 *   core      src/core/
 *   below     src/service/, src/state/, src/mail/
 *   apart     src/local-service/ (the embedded chatbot service: shares only the wire schemas)
 *
 * Each layer imports only the layers below it.
 */
const WIRING = ['^src/(main|app|tenant-chatbots)\\.ts$', '^src/deployment/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles: every module can be read (and tested) from the ones it imports.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-not-up',
      severity: 'error',
      comment: 'Core never imports a surface, the wiring or the embedded service.',
      from: { path: '^src/core/' },
      to: { path: ['^src/surfaces/', '^src/local-service/', ...WIRING] },
    },
    {
      name: 'below-core-not-up',
      severity: 'error',
      comment: 'The service client, the stores and the mailer import nothing above them.',
      from: { path: '^src/(service|state|mail)/' },
      to: { path: ['^src/core/', '^src/surfaces/', '^src/local-service/', ...WIRING] },
    },
    {
      name: 'service-state-apart',
      severity: 'error',
      comment: 'The chatbot client and the stores do not know each other (nor the mailer).',
      from: { path: '^src/(service|state)/' },
      to: { path: '^src/(service|state|mail)/', pathNot: '^src/$1/' },
    },
    {
      name: 'local-service-apart',
      severity: 'error',
      comment: 'The embedded chatbot service is independent of the bridge: it shares only the wire schemas.',
      from: { path: '^src/local-service/' },
      to: { path: '^src/', pathNot: ['^src/local-service/', '^src/service/schemas/'] },
    },
    {
      name: 'bridge-not-into-local-service',
      severity: 'error',
      comment: 'Only the wiring starts the embedded service; nothing else in the bridge reaches into it.',
      from: { path: '^src/', pathNot: ['^src/local-service/', ...WIRING] },
      to: { path: '^src/local-service/' },
    },
    {
      name: 'surfaces-apart',
      severity: 'error',
      comment: 'A surface imports no other surface: only its own folder and the shared budgets/ and surfaces/*.ts.',
      from: { path: '^src/surfaces/([^/]+)/' },
      to: { path: '^src/surfaces/[^/]+/', pathNot: ['^src/surfaces/$1/', '^src/surfaces/budgets/'] },
    },
    {
      name: 'surfaces-shared-not-into-a-surface',
      severity: 'error',
      comment: 'What the surfaces share (budgets/, runtime.ts, download.ts …) imports no one surface.',
      from: { path: ['^src/surfaces/budgets/', '^src/surfaces/[^/]+\\.ts$'] },
      to: { path: '^src/surfaces/(slack|discord|shell)/' },
    },
    {
      name: 'surfaces-not-up',
      severity: 'error',
      comment: 'Surfaces are handed what they need by the wiring; they never import it.',
      from: { path: '^src/surfaces/' },
      to: { path: WIRING },
    },
    {
      name: 'core-bridge-on-top',
      severity: 'error',
      comment: 'bridge.ts dispatches into core; nothing in core calls back up into it.',
      from: { path: '^src/core/', pathNot: '^src/core/bridge\\.ts$' },
      to: { path: '^src/core/bridge\\.ts$' },
    },
    {
      name: 'core-commands-on-top',
      severity: 'error',
      comment:
        'The command handlers use conversations, handoff, listings …, never the other way round; ' +
        'the catalogue (what a command is, who may run it) is the one thing below them that names commands.',
      from: { path: '^src/core/', pathNot: ['^src/core/commands/', '^src/core/bridge\\.ts$'] },
      to: { path: '^src/core/commands/', pathNot: '^src/core/commands/catalogue\\.ts$' },
    },
    {
      name: 'src-not-into-tests',
      severity: 'error',
      comment: 'The product never imports the tests, the fakes or the bench.',
      from: { path: '^src/' },
      to: { path: '^(test|fakes|bench)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (a typo in a path is caught here as well as by tsc).',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|test|fakes|bench)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
