/** Library entry: no side effects on import. */
export {AvaextNode, type NodeOverrides} from "./node.js";
export {parseArgs, run} from "./cli/index.js";
export {resolveConfig, ConfigError} from "./cli/config.js";
export {FLAGS, type AvaextConfig} from "./cli/flags.js";
