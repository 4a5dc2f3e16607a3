// Types for compile-contracts.mjs, so test/unit/dev/contracts.test.ts can recompile through the same code.
export interface CompiledContract {
  abi: Record<string, unknown>[];
  bytecode: string;
}
export const ARTIFACTS_PATH: string;
export function readSources(): Record<string, string>;
export function sourcesSha256(sources: Record<string, string>): string;
export function compileContracts(sources?: Record<string, string>): Record<string, CompiledContract>;
export function renderArtifacts(contracts: Record<string, CompiledContract>, hash: string): string;
