/** URLs a user configures (upstream services, RPCs): checked at start, shown in logs without their credentials. */

/**
 * Paths that name an API, not a secret, in their exact shapes: AvalancheGo's (`/ext/bc/C/rpc`, `/ext/bc/P`,
 * `/ext/info`) and the signature aggregators' (icm-services' `/aggregate-signatures`, the Data API's). Any other
 * path may hold a provider's key (`/v3/<key>`, `/ext/bc/C/rpc/<key>`), so it is shown as `/…`.
 */
const PUBLIC_PATH =
  /^\/(?:ext\/(?:bc\/[A-Za-z0-9]{1,60}(?:\/rpc|\/ws)?|info|health|metrics|[PXC]|index\/[A-Za-z0-9]{1,60}\/[a-z]{2,5})|aggregate-signatures|v1\/signatureAggregator\/[a-z]{1,20}\/aggregateSignatures)?\/?$/;

/**
 * The URL as logs, error messages, health checks and answers may show it: no user, password, query or fragment,
 * and no path beyond an API's own. Operators put API keys in all four.
 */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "<invalid URL>";
  }
  const path = PUBLIC_PATH.test(u.pathname) ? u.pathname.replace(/\/$/, "") : "/…";
  return `${u.protocol}//${u.host}${path}`;
}

/** `text` with each URL in it (http(s), postgres) redacted: a flag's value as admin.getConfig shows it. */
export function redactUrls(text: string): string {
  return text.replace(/\b(?:https?|postgres(?:ql)?):\/\/[^\s,]+/gi, (u) => redactUrl(u));
}

/**
 * A URL's credentials as an HTTP basic `authorization` header, and the URL without them: Node's fetch refuses a URL
 * with credentials in it.
 */
export function withoutCredentials(url: string | URL): {url: URL; headers: Record<string, string>} {
  const u = new URL(url);
  if (!u.username && !u.password) return {url: u, headers: {}};
  const headers = {
    authorization:
      "Basic " + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64"),
  };
  u.username = "";
  u.password = "";
  return {url: u, headers};
}

/** Checks a configured upstream URL: it parses and is http(s). Returns the reason it is not, or null. */
export function badUpstreamUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `${JSON.stringify(redactUrl(u))} is not an http(s) URL`;
  return null;
}
