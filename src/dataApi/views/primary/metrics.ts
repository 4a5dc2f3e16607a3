/** Metrics of the data API's views (docs/api/metrics.md): what they fold, what they skip, how far behind they are. */
import {Counter, Histogram, type Registry} from "prom-client";
import {METRIC_PREFIX} from "../../../metrics/index.js";

export interface ViewMetrics {
  containers: Counter<"chain" | "kind">;
  txs: Counter<"chain">;
  undecodable: Counter<"chain" | "kind">;
  errors: Counter;
  stopped: Counter<"chain">;
  batchSeconds: Histogram;
}

export function createViewMetrics(register: Registry): ViewMetrics {
  const registers = [register];
  return {
    containers: new Counter({
      name: `${METRIC_PREFIX}data_api_containers_folded_total`,
      help: "Containers folded into the data API's primary-network view",
      labelNames: ["chain", "kind"],
      registers,
    }),
    txs: new Counter({
      name: `${METRIC_PREFIX}data_api_txs_folded_total`,
      help: "Primary-network transactions folded into the data API",
      labelNames: ["chain"],
      registers,
    }),
    undecodable: new Counter({
      name: `${METRIC_PREFIX}data_api_undecodable_total`,
      help: "Containers that did not decode and were left out of the data API",
      labelNames: ["chain", "kind"],
      registers,
    }),
    errors: new Counter({
      name: `${METRIC_PREFIX}data_api_view_errors_total`,
      help: "Batches the primary-network view failed to fold (retried)",
      registers,
    }),
    stopped: new Counter({
      name: `${METRIC_PREFIX}data_api_view_stopped_total`,
      help: "Chains whose primary-network view stopped on an error of the fold (not retried; health says where)",
      labelNames: ["chain"],
      registers,
    }),
    batchSeconds: new Histogram({
      name: `${METRIC_PREFIX}data_api_view_batch_seconds`,
      help: "Time to decode and commit one batch of the primary-network view",
      registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    }),
  };
}
