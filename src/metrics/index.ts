/**
 * The process's one prom-client Registry (never the global one, so several nodes can live in one test process)
 * and the transport metric groups. Other concerns define their own groups in their folders with
 * `createXMetrics(register)`; the composition root hands each the same Registry.
 */
import {Registry, collectDefaultMetrics} from "prom-client";
import {FastCounter, FastHistogram} from "./fast.js";

export const METRIC_PREFIX = "avaext_";

export interface HttpMetrics {
  requests: FastCounter<"route" | "method" | "status">;
  duration: FastHistogram<"route">;
}

export interface RpcMetrics {
  calls: FastCounter<"method" | "outcome">;
  duration: FastHistogram<"method">;
}

export interface CoreMetrics {
  register: Registry;
  http: HttpMetrics;
  rpc: RpcMetrics;
}

/** Latency buckets from 50 µs to 2.5 s: the local API answers in well under a millisecond when healthy. */
const LATENCY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5];

export function createCoreMetrics(register = new Registry()): CoreMetrics {
  collectDefaultMetrics({register, prefix: METRIC_PREFIX});
  return {
    register,
    http: {
      requests: new FastCounter({
        name: `${METRIC_PREFIX}http_requests_total`,
        help: "HTTP requests by route template, method and status code",
        labelNames: ["route", "method", "status"],
        registers: [register],
      }),
      duration: new FastHistogram({
        name: `${METRIC_PREFIX}http_request_duration_seconds`,
        help: "HTTP request duration (arrival until the answer is written) by route template",
        labelNames: ["route"],
        buckets: LATENCY_BUCKETS,
        registers: [register],
      }),
    },
    rpc: {
      calls: new FastCounter({
        name: `${METRIC_PREFIX}rpc_calls_total`,
        help: "JSON-RPC calls by method and outcome (success, app_error, invalid_params, not_found, internal_error)",
        labelNames: ["method", "outcome"],
        registers: [register],
      }),
      duration: new FastHistogram({
        name: `${METRIC_PREFIX}rpc_call_duration_seconds`,
        help: "JSON-RPC method execution time by method",
        labelNames: ["method"],
        buckets: LATENCY_BUCKETS,
        registers: [register],
      }),
    },
  };
}
