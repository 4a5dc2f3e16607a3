/**
 * Webhooks (the hosted API's WebhooksService in node_modules/@avalabs/glacier-sdk, chainkit's `webhooks.*`): a
 * webhook of the API key that made it, its watched addresses, the key's shared secret. Every path needs a key the
 * keys file lists (401 without one), and another key's webhook is not found (404). Handlers: routes/webhooks.ts;
 * delivery: src/dataApi/webhooks/; docs/api/webhooks.md.
 */
import * as q from "../../server/querySpec.js";
import {route} from "../../server/route.js";
import {array, boolean, integer, literals, model, named, optional, string} from "../../server/schema.js";
import {EVM_PAGE, nextPageToken} from "./common.js";

const ID = {schema: {type: "string"}, description: "The webhook's ID"};

const WEBHOOK_FIELDS = {
  id: string(),
  url: string("Where events are POSTed"),
  chainId: string("The EVM chain ID (address_activity), or the primary-network chain"),
  status: literals(["active", "inactive"] as const),
  createdAt: integer("Unix seconds"),
  name: string(),
  description: string(),
  eventType: literals([
    "address_activity",
    "primary_network_address_activity",
    "validator_activity",
    "icm_activity",
  ] as const),
  metadata: named(
    "WebhookMetadata",
    "The event's filters: AddressActivityMetadata, PrimaryNetworkAddressActivityMetadata or ValidatorActivityMetadata",
  ),
  includeInternalTxs: optional(boolean()),
  includeLogs: optional(boolean()),
  deactivationReason: optional(
    string("avaext: why delivery stopped (a deactivation, or failures past the retry schedule)"),
  ),
};
const WEBHOOK = model(
  "WebhookResponse",
  WEBHOOK_FIELDS,
  "A webhook (the hosted API's EVMAddressActivityResponse, PrimaryNetworkAddressActivityResponse or ValidatorActivityResponse)",
);
const LIST = model("ListWebhooksResponse", {nextPageToken, webhooks: array(WEBHOOK)});
const ADDRESSES = model("ListWebhookAddressesResponse", {
  nextPageToken,
  addresses: array(string()),
  totalAddresses: integer(),
});
const SECRET = model("SharedSecretsResponse", {
  secret: string("The key's shared secret: HMAC-SHA256 key of x-signature, as its UTF-8 bytes"),
});

const ATTEMPT = model("WebhookAttempt", {
  attempt: integer("1 for the first"),
  at: integer("When it was made, Unix ms"),
  statusCode: integer("The receiver's HTTP status; 0 when none came"),
  latencyMs: integer(),
  error: optional(string("Why it failed")),
});
const MESSAGE_FIELDS = {
  messageId: string(),
  blockNumber: string(),
  txHash: optional(string()),
  reverses: optional(string("The message this reversal takes back (its block was rolled back)")),
  state: literals(["pending", "paused", "delivered", "failed", "dropped", "skipped"] as const),
  attempts: integer(),
  createdAt: integer("When the fold wrote it, Unix ms"),
  deliveredAt: optional(integer("Unix ms")),
  nextAttemptAt: optional(integer("Unix ms, while pending")),
};
const MESSAGE = model("WebhookMessage", MESSAGE_FIELDS, "A message of a webhook's delivery log (avaext's extension)");
const MESSAGE_DETAIL = model("WebhookMessageDetail", {
  ...MESSAGE_FIELDS,
  attemptLog: array(ATTEMPT),
  body: optional(string("The exact bytes sent (frozen at the first attempt)")),
});
const MESSAGES = model("ListWebhookMessagesResponse", {nextPageToken, messages: array(MESSAGE)});
const REPLAY = named(
  "ReplayWebhookRequest",
  "fromBlock (a block height) or fromMessageId: the webhook's messages from there on are delivered again",
);
const REPLAYED = model("ReplayWebhookResponse", {replayed: integer("Messages due again")});
const MESSAGE_ID = {schema: {type: "string"}, description: "A message ID"};

const CREATE = named(
  "CreateWebhookRequest",
  "An EVMAddressActivityRequest, PrimaryNetworkAddressActivityRequest or ValidatorActivityRequest",
  ["eventType", "url"],
);
const UPDATE = named(
  "UpdateWebhookRequest",
  "The fields to change: name, description, url, status, includeInternalTxs, includeLogs",
);
const CHANGE = named("AddressesChangeRequest", "The addresses to add or remove", ["addresses"]);

const TAGS = ["Webhooks"];
const EXT = ["Webhooks (avaext)"];

export const WEBHOOK_ROUTES = {
  createWebhook: route({
    method: "POST",
    path: "/v1/webhooks",
    operationId: "createWebhook",
    summary: "Create a webhook",
    tags: TAGS,
    params: {},
    query: {},
    paging: undefined,
    body: CREATE,
    response: WEBHOOK,
    status: 201,
  }),
  listWebhooks: route({
    method: "GET",
    path: "/v1/webhooks",
    operationId: "listWebhooks",
    summary: "The key's webhooks, newest first",
    tags: TAGS,
    params: {},
    query: {status: q.choice(["active", "inactive"] as const, {description: "Only webhooks of this status"})},
    paging: EVM_PAGE,
    response: LIST,
  }),
  getWebhook: route({
    method: "GET",
    path: "/v1/webhooks/:id",
    operationId: "getWebhook",
    summary: "One webhook",
    tags: TAGS,
    params: {id: ID},
    query: {},
    paging: undefined,
    response: WEBHOOK,
  }),
  updateWebhook: route({
    method: "PATCH",
    path: "/v1/webhooks/:id",
    operationId: "updateWebhook",
    summary: "Change a webhook",
    tags: TAGS,
    params: {id: ID},
    query: {},
    paging: undefined,
    body: UPDATE,
    response: WEBHOOK,
  }),
  deactivateWebhook: route({
    method: "DELETE",
    path: "/v1/webhooks/:id",
    operationId: "deactivateWebhook",
    summary: "Deactivate a webhook (it is kept, inactive)",
    tags: TAGS,
    params: {id: ID},
    query: {},
    paging: undefined,
    response: WEBHOOK,
  }),
  generateOrRotateSharedSecret: route({
    method: "POST",
    path: "/v1/webhooks:generateOrRotateSharedSecret",
    operationId: "generateOrRotateSharedSecret",
    summary: "Make the key's shared secret, or a new one",
    tags: TAGS,
    params: {},
    query: {},
    paging: undefined,
    response: SECRET,
    status: 201,
  }),
  getSharedSecret: route({
    method: "GET",
    path: "/v1/webhooks:getSharedSecret",
    operationId: "getSharedSecret",
    summary: "The key's shared secret (made on first use)",
    tags: TAGS,
    params: {},
    query: {},
    paging: undefined,
    response: SECRET,
  }),
  addAddressesToWebhook: route({
    method: "PATCH",
    path: "/v1/webhooks/:id/addresses",
    operationId: "addAddressesToWebhook",
    summary: "Watch more addresses",
    tags: TAGS,
    params: {id: ID},
    query: {},
    paging: undefined,
    body: CHANGE,
    response: WEBHOOK,
  }),
  removeAddressesFromWebhook: route({
    method: "DELETE",
    path: "/v1/webhooks/:id/addresses",
    operationId: "removeAddressesFromWebhook",
    summary: "Stop watching addresses",
    tags: TAGS,
    params: {id: ID},
    query: {},
    paging: undefined,
    body: CHANGE,
    response: WEBHOOK,
  }),
  getAddressesFromWebhook: route({
    method: "GET",
    path: "/v1/webhooks/:id/addresses",
    operationId: "getAddressesFromWebhook",
    summary: "The addresses a webhook watches",
    tags: TAGS,
    params: {id: ID},
    query: {},
    paging: EVM_PAGE,
    response: ADDRESSES,
  }),
  listWebhookMessages: route({
    method: "GET",
    path: "/v1/webhooks/:id/messages",
    operationId: "listWebhookMessages",
    summary: "A webhook's delivery log, newest first (avaext)",
    tags: EXT,
    params: {id: ID},
    query: {
      state: q.extension(
        q.choice(["pending", "paused", "delivered", "failed", "dropped", "skipped"] as const, {
          description: "Only messages in this state",
        }),
      ),
    },
    paging: EVM_PAGE,
    response: MESSAGES,
  }),
  getWebhookMessage: route({
    method: "GET",
    path: "/v1/webhooks/:id/messages/:messageId",
    operationId: "getWebhookMessage",
    summary: "One message of a webhook, its attempts and its body (avaext)",
    tags: EXT,
    params: {id: ID, messageId: MESSAGE_ID},
    query: {},
    paging: undefined,
    response: MESSAGE_DETAIL,
  }),
  replayWebhook: route({
    method: "POST",
    path: "/v1/webhooks/:id/replay",
    operationId: "replayWebhook",
    summary: "Deliver a webhook's messages again from a block height or a message on (avaext)",
    tags: EXT,
    params: {id: ID},
    query: {},
    paging: undefined,
    body: REPLAY,
    response: REPLAYED,
  }),
};
