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
    // Bounds for a hung test, not for a slow one: on this 2-core machine shared with other work, a PGlite initdb took
    // 20-40 s and a test that takes 5 s idle took 30. A test's own waits are on conditions, with
    // deadlines inside these.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll's default (1 s) was a deadline a busy machine missed.
    expect: {poll: {timeout: 20_000}},
  },
});
