/**
 * The layers docs/design/data-api.md states, as import rules: `npm run lint:deps` (part of `npm test`) fails on
 * an import that breaks one. Data flows source → view → store → query → model → HTTP; lower folders (util, chains,
 * decode, evm, warp, db, genesis) import nothing above them; flag parsing loads no driver.
 *
 * Type-only imports count (tsPreCompilationDeps): a folder that names another's types depends on it. Rules that
 * are about what runs (a driver loaded, an RPC called) skip them with `dependencyTypesNot: ["type-only"]`.
 *
 * KNOWN lists the imports that break a rule today and are being removed elsewhere; each names its rule and why
 * it is still here. A new violation is not in it, so it fails. Remove an entry when its import goes.
 */

/** Known violations: rule name → the `from` modules it does not apply to yet. */
const KNOWN = {
  // src/genesis/build.ts reads its genesis transactions back with the views' reader (views/primary/txCodec.ts) to
  // give the view its genesis state: kept while the P/X codecs are unified.
  "genesis-below-data-api": ["^src/genesis/build\\.ts$"],
  // src/dataApi/evm/chains.ts (the followed chains' registry: each one's RPC, follower and NetworkToken model)
  // sits among the EVM helpers that views/evm and models/evm import, and it imports their types back. It should
  // leave dataApi/evm for a module of its own above the views.
  "no-folder-cycles": ["^src/dataApi/(evm|models/evm|views/evm)$"],
};

/** `from` of rule `name`: `from`, minus its known violations. */
function from(name, f) {
  const known = KNOWN[name];
  if (!known) return f;
  return {...f, pathNot: [...(f.pathNot ?? []), ...known]};
}

// Not anchored: a worktree whose node_modules is a link resolves them to the linked folder.
const DRIVERS = "(^|/)node_modules/(pg|pg-[a-z-]+|@electric-sql/pglite|level|classic-level)/";
/** The folders below the data API, the node's services and the composition root. */
const LOW = "^src/(util|chains|decode|evm|warp|logger|metrics|db)/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-module-cycles",
      comment: "Two modules that import each other (directly or around a loop) are one module in two files.",
      severity: "error",
      from: from("no-module-cycles", {path: "^src/"}),
      to: {circular: true},
    },
    {
      name: "no-folder-cycles",
      comment: "Folders are layers: two that import each other, through any path, are one layer.",
      severity: "error",
      scope: "folder",
      from: from("no-folder-cycles", {path: "^src/"}),
      to: {circular: true},
    },
    {
      name: "util-is-a-leaf",
      comment: "src/util holds helpers every layer uses: it imports nothing else of src.",
      severity: "error",
      from: {path: "^src/util/"},
      to: {path: "^src/", pathNot: "^src/util/"},
    },
    {
      name: "low-layers-stay-low",
      comment:
        "util, chains, decode, evm (JSON-RPC, ABI, hex), warp, logger, metrics and db are used by the services; they use none of them, nor the composition root.",
      severity: "error",
      from: {path: LOW},
      to: {path: "^src/", pathNot: [LOW, "^src/(util|chains|logger|metrics)/"]},
    },
    {
      name: "low-layers-in-order",
      comment: "chains, decode, warp and db stand on util alone (db knows no index endpoint: it is handed its stores).",
      severity: "error",
      from: {path: "^src/(chains|decode|warp|db)/"},
      to: {path: "^src/", pathNot: ["^src/util/", "^src/$1/"]},
    },
    {
      name: "genesis-below-data-api",
      comment:
        "A network's genesis (src/genesis, AvalancheGo's genesis.FromConfig) is built below the data API that folds it.",
      severity: "error",
      from: from("genesis-below-data-api", {path: "^src/genesis/"}),
      to: {path: "^src/(dataApi|dev|feed|containerIndex|api|admin|health|cli|metricsService|node\\.ts|index\\.ts)"},
    },
    {
      name: "dev-is-a-plug-in",
      comment:
        "The dev network plugs in through the interfaces a real deployment uses (a feed, an EVM, a signature source), in the composition root only: nothing else in src/ reaches into it.",
      severity: "error",
      from: {path: "^src/", pathNot: "^src/(dev/|node\\.ts$)"},
      to: {path: "^src/dev/"},
    },
    {
      name: "store-below-data-api",
      comment:
        "store/ is the SQL client, migrations, schema and bulk inserts: it knows no view, query, model or route.",
      severity: "error",
      from: {path: "^src/dataApi/store/"},
      to: {path: "^src/dataApi/", pathNot: "^src/dataApi/store/"},
    },
    {
      name: "views-write-not-read",
      comment:
        "A view folds sources into the store; it never reads for an answer or formats one (queries, models, routes, server).",
      severity: "error",
      from: {path: "^src/dataApi/views/"},
      to: {path: "^src/dataApi/(queries|models|routes|server|signatures|observations)/"},
    },
    {
      name: "queries-answer-no-http",
      comment: "queries/ is SQL in, rows and models out: no router, route, service or signature source.",
      severity: "error",
      from: {path: "^src/dataApi/queries/"},
      to: {path: "^src/dataApi/(routes|server|signatures|service\\.ts)"},
    },
    {
      name: "models-are-pure",
      comment: "models/ turns rows into the hosted API's shapes: no store, query, route or server.",
      severity: "error",
      from: {path: "^src/dataApi/models/"},
      to: {path: "^src/dataApi/(store|queries|routes|server|signatures)/"},
    },
    {
      name: "routes-load-no-driver",
      comment: "A route takes its SQL client from the service as a type; it opens no store and loads no driver.",
      severity: "error",
      from: {path: "^src/dataApi/routes/"},
      to: {path: ["^src/dataApi/store/", DRIVERS], dependencyTypesNot: ["type-only"]},
    },
    {
      name: "routes-call-no-rpc",
      comment: "A route never calls an RPC: chain state comes from the store (views) or a signature source.",
      severity: "error",
      from: from("routes-call-no-rpc", {path: "^src/dataApi/routes/"}),
      to: {path: "^src/evm/rpc\\.ts$"},
    },
    {
      name: "routes-read-no-view",
      comment:
        "A route reads through queries/, never a view's modules (their row types are the writer's, not the answer's).",
      severity: "error",
      from: from("routes-read-no-view", {path: "^src/dataApi/routes/"}),
      to: {path: "^src/dataApi/views/"},
    },
    {
      name: "server-knows-no-routes",
      comment:
        "server/ is the /v1 router and its parameters, errors, tokens, keys: the routes register on it, not the reverse.",
      severity: "error",
      from: {path: "^src/dataApi/server/"},
      to: {path: "^src/dataApi/(routes|queries|views|store|models|signatures|observations)/"},
    },
    {
      name: "only-the-root-composes",
      comment: "service.ts composes the data API; only the composition root (src/node.ts) takes it.",
      severity: "error",
      from: {path: "^src/", pathNot: "^src/node\\.ts$"},
      to: {path: "^src/dataApi/service\\.ts$"},
    },
    {
      name: "flag-parsing-imports-values",
      comment:
        "Flag parsing (src/cli/flags.ts, config.ts) imports the data API only for plain values in leaf modules (store/defaults.ts), so `--help` and a config error load no store, EVM or signature source.",
      severity: "error",
      from: {path: "^src/cli/(flags|config)\\.ts$"},
      to: {
        path: "^src/(dataApi|evm|warp|dev|feed|db|containerIndex|genesis|api|admin|health)/",
        pathNot: "^src/dataApi/store/defaults\\.ts$",
      },
    },
    {
      name: "flag-parsing-loads-no-driver",
      comment:
        "Nothing flag parsing imports, however indirectly, loads pg, PGlite or LevelDB (test/unit/cli/flagImports.test.ts checks it at run time).",
      severity: "error",
      from: {path: "^src/cli/(flags|config)\\.ts$"},
      to: {reachable: true, path: DRIVERS},
    },
    {
      name: "leaves-import-nothing",
      comment: "The leaf modules flag parsing may import hold plain values: they import nothing.",
      severity: "error",
      from: {path: "^src/dataApi/store/defaults\\.ts$"},
      to: {},
    },
    {
      name: "not-to-dev-dep",
      comment:
        "src/ runs from an install without devDependencies (npm install --omit=dev): it may use their types only.",
      severity: "error",
      from: {path: "^src/"},
      to: {dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"]},
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to no file fails at run time.",
      severity: "error",
      from: {path: "^src/"},
      to: {couldNotResolve: true},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: {fileName: "tsconfig.json"},
    doNotFollow: {path: "node_modules"},
    // The ESM build's .js specifiers name the .ts sources.
    enhancedResolveOptions: {extensions: [".ts", ".js", ".mjs", ".cjs", ".json"]},
    moduleSystems: ["es6", "cjs"],
  },
};
