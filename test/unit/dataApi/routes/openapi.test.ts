/**
 * The `/v1` reference (docs/api/openapi.json, built from src/dataApi/routes/defs) held against both SDKs' declared
 * operations (test/helpers/sdkOperations.ts reads them from the packages' own files):
 * for every operation avaext serves, the same path and method, the same query parameters, a body where the SDK
 * sends one, the status chainkit accepts, chainkit's operation ID, and the answer's required top-level fields. An
 * SDK operation avaext does not serve is listed below by name, so that one served later (or one dropped) fails here.
 */
import {describe, expect, it} from "vitest";
import {v1OpenApiDocument} from "../../../../src/dataApi/routes/defs/index.js";
import {chainkitOperations, glacierSdkOperations, type SdkOperation} from "../../../helpers/sdkOperations.js";

/** SDK operations avaext does not serve, by the SDK's name (chainkit's operation ID, glacier-sdk's `Service.method`). */
const NOT_SERVED: Record<string, string> = {};
const notServed = (reason: string, names: string[]): void => names.forEach((n) => (NOT_SERVED[n] = reason));
notServed(
  "metrics v2 (/v2): served by the metrics service outside the /v1 route table (src/metricsService/v2; test/e2e/metricsV2.test.ts calls them through chainkit)",
  [
    ...[
      "listChains",
      "getChain",
      "getEvmChainMetrics",
      "getEvmChainRollingWindowMetrics",
      "getStakingMetrics",
      "getICMSummary",
    ],
    ...["getICMTimeseries", "metrics-health-check", "metrics-live-check"],
  ],
);
notServed(
  "metrics v2's L1 validator metrics, subnet validator lists and BTC.b bridgers: not served, the store cannot answer them exactly (docs/api/metrics-service.md)",
  [
    ...[
      "getMetricsBySubnetId",
      "getValidatorsByDateRange",
      "getMetricsByValidationId",
      "getMetricsByNodeId",
      "getTotalL1ValidatorMetrics",
      "getAddressesByBtcbBridged",
    ],
  ],
);
notServed("the hosted API's account usage: avaext keeps no accounts", [
  ...["getApiLogs", "getApiUsageMetrics", "getRpcUsageMetrics", "getSubnetRpcUsageMetrics"],
  ...[
    "getApiLogs",
    "getApiUsageMetrics",
    "getRpcUsageMetrics",
    "getSubnetRpcUsageMetrics",
    "getPrimaryNetworkRpcUsageMetrics",
  ].map((m) => `DataApiUsageMetricsService.${m}`),
]);
notServed("export jobs: not served", [
  "getOperationResult",
  "postTransactionExportJob",
  "OperationsService.getOperationResult",
  "OperationsService.postTransactionExportJob",
]);
notServed("writes by the hosted API's operators (contract info, media, NFT reindexing): not served", [
  ...[
    "EvmContractsService.updateContractInfo",
    "DefaultService.mediaControllerUploadImage",
    "reindexNft",
    "NfTsService.reindexNft",
  ],
]);
notServed(
  "push notifications: not served",
  ["access", "subscribe", "subscriptions", "unsubscribe"].map((m) => `NotificationsService.${m}`),
);

interface DocOperation {
  operationId: string;
  parameters: Array<{name: string; in: string; "x-avaext-extension"?: boolean}>;
  requestBody?: unknown;
  responses: Record<string, {content?: Record<string, {schema: Record<string, unknown>}>}>;
}

const doc = v1OpenApiDocument() as {
  paths: Record<string, Record<string, DocOperation>>;
  components: {schemas: Record<string, Record<string, unknown>>};
};

/** The fields every answer of a schema carries: its own `required`, or what every `anyOf` member requires. */
function requiredOf(schema: Record<string, unknown>): string[] {
  if (typeof schema.$ref === "string")
    return requiredOf(doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")]!);
  if (Array.isArray(schema.anyOf)) {
    const sets = (schema.anyOf as Array<Record<string, unknown>>).map((m) => new Set(requiredOf(m)));
    return [...sets[0]!].filter((f) => sets.every((s) => s.has(f))).sort();
  }
  return [...((schema.required as string[] | undefined) ?? [])].sort();
}

const sdkOps = [...glacierSdkOperations(), ...chainkitOperations()];
const key = (method: string, p: string): string => `${method.toUpperCase()} ${p}`;
const served = sdkOps.filter((o) => NOT_SERVED[o.name] === undefined);
const byKey = new Map<string, SdkOperation[]>();
for (const o of served) byKey.set(key(o.method, o.path), [...(byKey.get(key(o.method, o.path)) ?? []), o]);

describe("the SDKs' operations", () => {
  it("reads both SDKs' operations", () => {
    // A reader that silently finds nothing would pass everything below.
    expect(glacierSdkOperations().length).toBeGreaterThan(70);
    expect(chainkitOperations().length).toBeGreaterThan(90);
  });
});

describe("the /v1 reference against the SDKs", () => {
  it("serves every SDK operation but those listed as not served, and no listed one", () => {
    const missing = [...byKey.keys()].filter((k) => {
      const [method, p] = k.split(" ") as [string, string];
      return doc.paths[p]?.[method.toLowerCase()] === undefined;
    });
    expect(missing).toEqual([]);
    const listedButServed = sdkOps
      .filter((o) => NOT_SERVED[o.name] !== undefined && doc.paths[o.path]?.[o.method.toLowerCase()] !== undefined)
      .map((o) => o.name);
    expect(listedButServed).toEqual([]);
    const unknownNames = Object.keys(NOT_SERVED).filter((n) => !sdkOps.some((o) => o.name === n));
    expect(unknownNames).toEqual([]);
  });

  it("declares no path the SDKs lack but avaext's own", () => {
    const own = Object.entries(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => key(m, p)))
      .filter((k) => !byKey.has(k));
    expect(own.sort()).toEqual([
      "GET /v1/openapi.json",
      "GET /v1/webhooks/{id}/messages",
      "GET /v1/webhooks/{id}/messages/{messageId}",
      "POST /v1/webhooks/{id}/replay",
    ]);
  });

  for (const [k, ops] of byKey) {
    const [method, p] = k.split(" ") as [string, string];
    describe(k, () => {
      const op = (): DocOperation => doc.paths[p]![method.toLowerCase()]!;

      it("takes the SDKs' query parameters (avaext's own are marked)", () => {
        const mine = op()
          .parameters.filter((x) => x.in === "query" && !x["x-avaext-extension"])
          .map((x) => x.name)
          .sort();
        const theirs = [...new Set(ops.flatMap((o) => o.query))].sort();
        expect(mine).toEqual(theirs);
      });

      it("takes a body where the SDKs send one", () => {
        expect(op().requestBody !== undefined).toBe(ops.some((o) => o.hasBody));
      });

      it("answers chainkit's status, under chainkit's operation ID", () => {
        const ck = ops.find((o) => o.sdk === "chainkit");
        if (ck === undefined) return;
        expect(op().operationId).toBe(ck.name);
        expect(Object.keys(op().responses).filter((s) => /^2/.test(s))).toEqual([String(ck.status)]);
      });

      it("requires the fields the SDKs' models require, and no field they lack", () => {
        const status = Object.keys(op().responses).find((s) => /^2/.test(s))!;
        const mine = requiredOf(op().responses[status]!.content!["application/json"]!.schema);
        const theirs = [...new Set(ops.flatMap((o) => o.required))].sort();
        expect(theirs.filter((f) => !mine.includes(f))).toEqual([]);
        // Beyond them, only fields the models have as optional (that avaext always answers).
        const known = new Set(ops.flatMap((o) => o.fields));
        expect(mine.filter((f) => !known.has(f))).toEqual([]);
      });
    });
  }
});
