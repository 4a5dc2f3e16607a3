#!/usr/bin/env node
// Thin shim: all logic lives in src/cli (compiled to dist/ by `npm install`, which runs `prepare`).
import {run} from "../dist/src/cli/index.js";

await run(process.argv.slice(2));
