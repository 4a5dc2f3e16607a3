/**
 * Every `/v1` route, bound to its handlers (the families of defs/index.ts): what the composition root mounts on the
 * data API's router. A new family is its entries (defs/), its handlers (a file here) and one line in `v1Routes`.
 */
import type {BoundRoute} from "../server/route.js";
import {V1_ROUTE_FAMILIES} from "./defs/index.js";
import {evmRoutes, type EvmRoutesModules} from "./evm.js";
import {healthRoutes, type NamedCheck} from "./health.js";
import {icmRoutes, type IcmRoutesModules} from "./icm.js";
import {metaRoutes} from "./meta.js";
import {primaryRoutes, type PrimaryRoutesModules} from "./primary.js";
import {signatureRoutes, type SignatureRoutesModules} from "./signatures.js";
import {webhookRoutes, type WebhookRoutesModules, type WebhookRoutesOptions} from "./webhooks.js";
import type {SqlClient} from "../store/sql.js";
import type {Logger} from "../../logger/index.js";

export interface V1RoutesModules {
  primary: PrimaryRoutesModules;
  evm: EvmRoutesModules;
  icm: IcmRoutesModules;
  signatures: SignatureRoutesModules;
  webhooks: {options: WebhookRoutesOptions; modules: WebhookRoutesModules};
  health: {checks: readonly NamedCheck[]; sql: SqlClient; logger: Logger};
}

export function v1Routes(m: V1RoutesModules): BoundRoute[] {
  const bound = [
    ...primaryRoutes(m.primary),
    ...evmRoutes(m.evm),
    ...icmRoutes(m.icm),
    ...signatureRoutes(m.signatures),
    ...webhookRoutes(m.webhooks.options, m.webhooks.modules),
    ...healthRoutes(m.health.checks, m.health.sql, m.health.logger),
    ...metaRoutes(),
  ];
  // What is served is what the document lists: every entry of every family, and nothing else.
  const declared = new Set(V1_ROUTE_FAMILIES.flatMap((f) => Object.values(f)));
  const served = new Set(bound.map((b) => b.def));
  for (const d of declared) if (!served.has(d)) throw new Error(`${d.method} ${d.path} is declared but not served`);
  for (const d of served)
    if (!declared.has(d)) throw new Error(`${d.method} ${d.path} is served but not in the document`);
  return bound;
}
