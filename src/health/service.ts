/**
 * The health API: GET (Kubernetes probes: 200 healthy, 503 not) on four paths and JSON-RPC on `/ext/health`
 * (always HTTP 200, the report in `result`). Both serve cached results; nothing here runs a check.
 */
import {method, RawJson, type MethodTable} from "../api/rpcRouter.js";
import type {PlainResponse, Routes, Target} from "../api/routes.js";
import {arrayOf, object, optional, string} from "../api/validate.js";
import type {Health, WorkerName} from "./health.js";

const tagsParams = object({tags: optional(arrayOf(string), [] as string[])});

export function createHealthMethods(health: Health): MethodTable<null> {
  // The cached serialisation the GET paths serve too: a probe's call costs no JSON.stringify of the report.
  const result = (worker: WorkerName, tags?: readonly string[]): RawJson =>
    new RawJson(health.reportJson(worker, tags).json);
  return {
    health: method(tagsParams, (p) => result("health", p.tags)),
    readiness: method(tagsParams, (p) => result("readiness", p.tags)),
    // Liveness has no checks: answering at all is the proof (as AvalancheGo).
    liveness: method(object({}), () => result("liveness")),
  };
}

function getReport(health: Health, worker: WorkerName, target: Target): PlainResponse {
  const report = health.reportJson(worker, target.query.getAll("tag"));
  return {status: report.healthy ? 200 : 503, contentType: "application/json", body: report.body};
}

/** Registers `/ext/health` (GET report, POST JSON-RPC) and the three GET sub-paths. */
export function registerHealthRoutes(routes: Routes, health: Health): void {
  routes.add("/ext/health", {
    template: "/ext/health",
    rpc: {service: "health", ctx: null},
    plain: (_req, target) => getReport(health, "health", target),
  });
  for (const w of ["health", "readiness", "liveness"] as const) {
    routes.add(`/ext/health/${w}`, {
      template: `/ext/health/${w}`,
      plain: (_req, target) => getReport(health, w, target),
      plainAnyMethod: true,
    });
  }
}
