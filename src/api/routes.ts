/**
 * The path table: exact routes, pattern routes resolved at request time (index paths whose chain may be any alias),
 * and the endpoint aliases made by admin.alias (`/ext/<alias>` and its sub-paths serve `/ext/<endpoint>...`).
 */
import type {IncomingMessage} from "node:http";
import {MAX_ALIAS_LENGTH} from "../chains/index.js";

/** A plain (non-JSON-RPC) answer: health reports, metrics text, the metrics service. */
export interface PlainResponse {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

export type PlainHandler = (req: IncomingMessage, url: URL) => PlainResponse | Promise<PlainResponse>;

export interface Route {
  /** Route template: the metrics label (`/ext/index/:chain/:kind`), never the raw path. */
  template: string;
  /** JSON-RPC service reachable by POST on this path, with its per-route context. */
  rpc?: {service: string; ctx: unknown};
  /** Answer to GET and HEAD (and, where `plainAnyMethod`, to every method, as AvalancheGo's health sub-paths). */
  plain?: PlainHandler;
  plainAnyMethod?: boolean;
  /** Never open this route to a wildcard CORS origin (contract §2). */
  sensitive?: boolean;
}

/** Resolves paths of one pattern; `list` gives the canonical concrete paths (for alias validation). */
export interface RouteResolver {
  resolve(path: string): Route | null;
  list(): string[];
}

const EXT = "/ext/";

export class Routes {
  private readonly exact = new Map<string, Route>();
  private readonly resolvers: RouteResolver[] = [];
  /** alias path (`/ext/<alias>`) → endpoint path (`/ext/<endpoint>`), in registration order. */
  private readonly aliases = new Map<string, string>();

  add(path: string, route: Route): void {
    if (this.exact.has(path)) throw new Error(`route ${path} already registered`);
    this.exact.set(path, route);
  }

  addResolver(r: RouteResolver): void {
    this.resolvers.push(r);
  }

  /** The route serving a path, following one level of admin.alias. */
  resolve(path: string): Route | null {
    const direct = this.direct(path);
    if (direct) return direct;
    if (this.aliases.size === 0 || !path.startsWith(EXT)) return null;
    for (const [alias, endpoint] of this.aliases) {
      if (path === alias) return this.direct(endpoint);
      if (path.startsWith(alias) && path[alias.length] === "/") return this.direct(endpoint + path.slice(alias.length));
    }
    return null;
  }

  /**
   * admin.alias: `/ext/<alias>` serves `/ext/<endpoint>` and everything under it. Errors as AvalancheGo where it
   * has them; an endpoint that matches no route is an error here (AvalancheGo accepts it silently, hiding typos).
   */
  addAlias(endpoint: string, alias: string): void {
    if (Buffer.byteLength(alias, "utf8") > MAX_ALIAS_LENGTH) throw new Error("alias length is too long");
    const endpointPath = EXT + endpoint;
    const aliasPath = EXT + alias;
    if (!this.knownEndpoint(endpointPath)) throw new Error(`unknown endpoint: ${endpointPath}`);
    if (this.aliases.has(aliasPath)) {
      throw new Error(`route is either already aliased or already maps to a handle: ${aliasPath}`);
    }
    if (this.knownEndpoint(aliasPath)) throw new Error(`failed to create endpoint as ${aliasPath} already exists`);
    this.aliases.set(aliasPath, endpointPath);
  }

  /** Concrete paths served, for documentation and alias checks. */
  paths(): string[] {
    return [...this.exact.keys(), ...this.resolvers.flatMap((r) => r.list())];
  }

  private direct(path: string): Route | null {
    const route = this.exact.get(path);
    if (route) return route;
    for (const r of this.resolvers) {
      const hit = r.resolve(path);
      if (hit) return hit;
    }
    return null;
  }

  private knownEndpoint(path: string): boolean {
    if (this.direct(path)) return true;
    const base = path + "/";
    return this.paths().some((p) => p.startsWith(base));
  }
}
