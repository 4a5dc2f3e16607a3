#!/usr/bin/env node
// Thin shim: all logic lives in src/cli (compiled to dist/ by `npm install`, which runs `prepare`).
// V8 is tuned first (src/cli/v8.ts says why); the service is loaded after, so its code runs with the settings.
import {tuneV8} from "../dist/src/cli/v8.js";

tuneV8();
const {run} = await import("../dist/src/cli/index.js");
await run(process.argv.slice(2));
