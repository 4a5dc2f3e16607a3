/**
 * `npm run test:unit`: the inner loop, the unit tests that need neither a database, anvil nor a child process
 * (under 2 minutes on 2 busy cores). `npm test` (vitest.config.ts) runs these and everything else.
 */
import {defineConfig} from "vitest/config";

/**
 * Left to `npm test`: the tests that start a PostgreSQL database or PGlite (test/helpers/sql.ts, pglite.ts,
 * test/unit/dataApi/queries/fixture.ts), anvil or the dev EVMs, a child avaext or node process, or solc.
 */
const SLOW = [
  "test/unit/cli/cli.test.ts",
  "test/unit/cli/flagImports.test.ts",
  "test/unit/cli/v8.test.ts",
  "test/unit/dataApi/evm/nftStore.test.ts",
  "test/unit/dataApi/evm/tokenMetadata.test.ts",
  "test/unit/dataApi/queries/evmAcross.test.ts",
  "test/unit/dataApi/queries/nftPageBudget.test.ts",
  "test/unit/dataApi/queries/primary.test.ts",
  "test/unit/dataApi/queries/supplyTimeout.test.ts",
  "test/unit/dataApi/routes/liveCheck.test.ts",
  "test/unit/dataApi/routes/openapiFile.test.ts",
  "test/unit/dataApi/signatures/validatorSets.test.ts",
  "test/unit/dataApi/store/**",
  "test/unit/dataApi/views/evm/follower.test.ts",
  "test/unit/dataApi/views/evm/lanes.test.ts",
  "test/unit/dataApi/views/evm/laneLocks.test.ts",
  "test/unit/dataApi/views/evm/icmConcurrent.test.ts",
  "test/unit/dataApi/views/evm/icmReorg.test.ts",
  "test/unit/dataApi/views/primary/dag.test.ts",
  "test/unit/dataApi/views/primary/stakingFold.test.ts",
  "test/unit/dataApi/views/primary/view.test.ts",
  "test/unit/dev/anvil.test.ts",
  "test/unit/docs/links.test.ts",
  "test/unit/dev/contracts.test.ts",
  "test/unit/dev/devChainTraces.test.ts",
  "test/unit/layers/dependencyRules.test.ts",
  "test/unit/dev/evmTraffic.test.ts",
  "test/unit/dev/messenger.test.ts",
  "test/unit/genesis/fold.test.ts",
  // CPU-bound, 2-10 s each on an idle machine and 25-50 s each on a busy one: mainnet's genesis, the dev network's
  // staking and BLS keys, the container index on LevelDB, the view's recovery, the RPC client's retries.
  "test/unit/genesis/build.test.ts",
  "test/unit/dev/staking.test.ts",
  "test/unit/dev/primaryNetwork.test.ts",
  "test/unit/containerIndex/store.test.ts",
  "test/unit/dataApi/views/primary/recover.test.ts",
  "test/unit/evm/rpc.test.ts",
];

/** A file that mocks a module (vi.mock) needs a module graph of its own: left to `npm test` too (see isolate). */
const MOCKS = ["test/unit/dataApi/evm/nftMetadataPinning.test.ts"];

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...SLOW, ...MOCKS],
    // Importing each file's modules afresh was half of this run on a busy machine: the files of a worker share them.
    isolate: false,
    // No globalSetup: none of these uses the run's PostgreSQL server or PGlite cluster.
    setupFiles: ["test/setup/tempDirs.ts"],
    pool: "forks",
    poolOptions: {forks: {maxForks: 2, minForks: 1, isolate: false}},
    // As vitest.config.ts: bounds for a hung test, not for a slow one.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    expect: {poll: {timeout: 20_000}},
  },
});
