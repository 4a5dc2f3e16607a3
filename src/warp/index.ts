export * from "./message.js";
export * from "./validators.js";
export * from "./bls.js";
export * from "./aggregator.js";
export * from "./justification.js";
