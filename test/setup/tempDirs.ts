// Each test file's temp dirs (test/helpers/node.ts tempDir) are removed after its own afterAll hooks have closed
// what used them: hooks registered here run last. Without this every run left ~100 dirs (LevelDB, PGlite) in /tmp.
import {afterAll} from "vitest";
import {removeTempDirs} from "../helpers/tempDirs.js";

afterAll(() => removeTempDirs());
