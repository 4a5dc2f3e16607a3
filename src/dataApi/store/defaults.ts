/**
 * The store's settings that flag parsing needs (src/cli/flags.ts, config.ts): plain values, so parsing flags
 * loads no driver. A leaf: it imports nothing (config/dependency-cruiser.cjs holds it so).
 */

/**
 * PGlite's page cache, MiB. A fold inserts into indexes of random keys, and once they outgrow this cache the
 * inserts that miss it evict pages through PGlite's virtual file system: a larger cache folds a long history faster
 * for more memory (docs/design/decisions.md, record 0010). The default is PostgreSQL's; at 2 GiB PGlite cannot start
 * (32-bit WebAssembly).
 */
export const PGLITE_SHARED_BUFFERS_MB = {default: 128, min: 16, max: 1024} as const;
