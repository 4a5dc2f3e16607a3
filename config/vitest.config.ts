import {defineConfig} from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL server for the whole run (test/helpers/sql.ts), and one empty PGlite cluster that PGlite stores
    // start as copies of (test/helpers/pglite.ts).
    globalSetup: ["test/setup/postgres.ts", "test/setup/pglite.ts"],
    setupFiles: ["test/setup/tempDirs.ts"],
    // Tests start real servers and LevelDB instances; two cores, so keep workers bounded.
    pool: "forks",
    poolOptions: {forks: {maxForks: 2, minForks: 1}},
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
