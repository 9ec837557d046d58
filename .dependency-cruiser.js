// The workspace's structure rules, checked by `pnpm run structure` over services/, libs/
// and tools/. Services talk only over NATS, so their code never meets; libraries sit
// below both and know neither. The harnesses that run the whole system (system/,
// campaign/, bench/, scripts/) are not cruised: starting services is their job.

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-library-imports-a-service-or-tool',
      comment:
        'A library is shared by services and tools; importing one of them would make every ' +
        'user of the library carry that service. Move what both need into a library.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^(services|tools)/' },
    },
    {
      name: 'no-service-imports-another-service',
      comment:
        'Services meet only over NATS (subjects and schemas in libs/contracts). Importing ' +
        "another service's code, by path or by its @dzpay/ name, couples their releases.",
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/[^/]+/test/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'no-service-test-imports-another-service',
      comment:
        "A service's tests start that service alone. The one exception is the card network " +
        'sandbox: it stands for the world outside dzpay (the real card network), which the ' +
        'payments tests run against in process.',
      severity: 'error',
      from: { path: '^services/([^/]+)/test/' },
      to: { path: '^services/', pathNot: '^services/($1|cardnet-sandbox)/' },
    },
    {
      name: 'no-payments-operation-imports-another-operation',
      comment:
        'payments is one room per operation (registration, checkout, agency, settlement, ' +
        'refunds, reconciliation, links, balance, listing): each takes the shared rules ' +
        '(domain/), the tables (store/), what decides a payment with the card network ' +
        "(lifecycle/, card-network/) and the context, never another operation's internals. " +
        'What two operations share moves down into one of those.',
      severity: 'error',
      from: {
        path: '^services/payments/src/(agency|balance|checkout|links|listing|reconciliation|refunds|registration|settlement)/',
      },
      to: {
        path: '^services/payments/src/(agency|balance|checkout|links|listing|reconciliation|refunds|registration|settlement)/',
        pathNot: '^services/payments/src/$1/',
      },
    },
    {
      name: 'no-payments-layer-imports-upward',
      comment:
        'Inside payments the layers go one way: operations over lifecycle/ over store/ and ' +
        'card-network/ over domain/ (pure). A lower layer importing a higher one would ' +
        'make the rules depend on the flows that use them.',
      severity: 'error',
      from: {
        path: '^services/payments/src/(domain|store|lifecycle|card-network)/|^services/payments/src/context\\.ts$',
      },
      to: {
        path: '^services/payments/src/(agency|balance|checkout|links|listing|reconciliation|refunds|registration|settlement)/',
      },
    },
    {
      name: 'no-payments-domain-does-io',
      comment: 'domain/ is pure rules: no table, no card network, no flow.',
      severity: 'error',
      from: { path: '^services/payments/src/domain/' },
      to: { path: '^services/payments/src/(store|lifecycle|card-network)/' },
    },
    {
      name: 'no-payments-store-runs-a-flow',
      comment:
        'store/ reads and writes tables; the flows over it live in lifecycle/ and the operations.',
      severity: 'error',
      from: { path: '^services/payments/src/store/' },
      to: { path: '^services/payments/src/lifecycle/' },
    },
    {
      name: 'no-unresolved-workspace-package',
      comment:
        'A @dzpay/ name that does not resolve hides where it points, and so escapes the ' +
        "rules above: add the package to the importer's package.json.",
      severity: 'error',
      from: {},
      to: { path: '^@dzpay/', couldNotResolve: true },
    },
    {
      name: 'no-value-cycle',
      comment:
        'Modules that load each other at run time see half-initialised exports. Imports of ' +
        'types alone are erased before the code runs and do not count.',
      severity: 'error',
      from: {},
      // dependency-cruiser names, for each import, the first cycle it finds through it, and
      // this lets go those that pass a type-only import. A value cycle still shows through
      // any of its imports whose first cycle is its own; one whose every import first meets
      // a type-only cycle would slip by.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    // A @dzpay/ name resolves through pnpm's link in node_modules to the package's own
    // folder (symlinks are followed to their real path), so `@dzpay/payments/service`
    // is services/payments/src/service.ts to the rules; an unresolved one stays a name.
    includeOnly: ['^(services|libs|tools)/', '^@dzpay/'],
    exclude: { path: '(^|/)node_modules/' },
    doNotFollow: { path: '(^|/)node_modules/' },
    // Type-only imports are kept (a library may not even name a service's types); the
    // cycle rule alone sets them aside.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default'],
      mainFields: ['module', 'main'],
    },
    skipAnalysisNotInRules: true,
  },
};
