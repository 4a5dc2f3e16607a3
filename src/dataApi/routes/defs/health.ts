/**
 * The data API's own health (the hosted API's HealthCheck service in node_modules/@avalabs/glacier-sdk, chainkit's
 * `data.healthCheck` and `data.liveCheck`), both in the HealthCheckResultDto, 503 with it when a check fails.
 * Handlers: routes/health.ts.
 */
import {route} from "../../server/route.js";
import {named} from "../../server/schema.js";

const RESULT = named("HealthCheckResultDto", "Each check's status; the failing ones under error, with their reasons");
const TAGS = ["Health Check"];

export const HEALTH_ROUTES = {
  dataHealthCheck: route({
    method: "GET",
    path: "/v1/health-check",
    operationId: "data-health-check",
    summary: "The store, its views and each followed EVM chain",
    tags: TAGS,
    params: {},
    query: {},
    paging: undefined,
    response: RESULT,
    otherAnswers: {503: RESULT},
  }),
  liveCheck: route({
    method: "GET",
    path: "/v1/live-check",
    operationId: "live-check",
    summary: "Whether reads are answered (whether the store answers)",
    tags: TAGS,
    params: {},
    query: {},
    paging: undefined,
    response: RESULT,
    otherAnswers: {503: RESULT},
  }),
};
