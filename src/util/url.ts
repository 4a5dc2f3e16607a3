/** URLs a user configures (upstream services, RPCs): checked at start, shown in logs without their credentials. */

/** The URL as logs and error messages may show it: no user, password, query or fragment. */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "<invalid URL>";
  }
  u.username = "";
  u.password = "";
  u.search = "";
  u.hash = "";
  return u.toString().replace(/\/$/, "");
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
