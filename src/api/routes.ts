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

/** The request target split by the server: the path as received and its query (empty when there is none). */
export interface Target {
  path: string;
  query: URLSearchParams;
  /** Aborted when the client goes away before its answer is sent: work for it can stop. */
  signal?: AbortSignal;
}

export type PlainHandler = (req: IncomingMessage, target: Target) => PlainResponse | Promise<PlainResponse>;

export interface Route {
  /** Route template: the metrics label (`/ext/index/:chain/:kind`), never the raw path. */
  template: string;
  /** JSON-RPC service reachable by POST on this path, with its per-route context. */
  rpc?: {service: string; ctx: unknown};
  /** Answer to GET and HEAD (and, where `plainAnyMethod`, to every method, as AvalancheGo's health sub-paths). */
  plain?: PlainHandler;
  plainAnyMethod?: boolean;
  /** The methods a `plainAnyMethod` handler serves, for a CORS preflight (GET and HEAD when not given). */
  methods?: string[];
  /** Never open this route to a wildcard CORS origin (docs/api/http.md). */
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

  /**
   * The route serving a path, following admin.alias. Aliases always point at real endpoints (an alias of an alias
   * is recorded against the real endpoint), so one level is enough. Real routes win over aliases.
   */
  resolve(path: string): Route | null {
    const direct = this.direct(path);
    if (direct) return direct;
    if (this.aliases.size === 0 || !path.startsWith(EXT)) return null;
    const target = this.unalias(path);
    return target === null ? null : this.direct(target);
  }

  /**
   * admin.alias: `/ext/<alias>` serves `/ext/<endpoint>` and everything under it. Errors as AvalancheGo where it
   * has them; an endpoint that matches no route is an error here (AvalancheGo accepts it silently, hiding typos).
   */
  addAlias(endpoint: string, alias: string): void {
    if (Buffer.byteLength(alias, "utf8") > MAX_ALIAS_LENGTH) throw new Error("alias length is too long");
    const aliasPath = EXT + alias;
    // An alias of an alias serves the real endpoint (AvalancheGo re-registers the aliased routes, same effect).
    const endpointPath = this.knownEndpoint(EXT + endpoint) ? EXT + endpoint : this.unalias(EXT + endpoint);
    if (endpointPath === null || !this.knownEndpoint(endpointPath))
      throw new Error(`unknown endpoint: ${EXT + endpoint}`);
    if (this.aliases.has(aliasPath)) {
      throw new Error(`route is either already aliased or already maps to a handle: ${aliasPath}`);
    }
    // AvalancheGo fails when one of the paths the alias would serve is already a route. Unlike AvalancheGo, a
    // failed alias is not left reserved: a refused call changes nothing.
    const taken = this.collision(endpointPath, aliasPath);
    if (taken !== null) throw new Error(`failed to create endpoint as ${taken} already exists`);
    this.aliases.set(aliasPath, endpointPath);
  }

  /** Endpoint aliases (`/ext/<alias>` → `/ext/<endpoint>`), in registration order. */
  aliasList(): Array<{alias: string; endpoint: string}> {
    return [...this.aliases].map(([alias, endpoint]) => ({alias, endpoint}));
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

  /** The endpoint path an aliased path stands for, or null when no alias covers it (longest alias first). */
  private unalias(path: string): string | null {
    let best: string | null = null;
    for (const alias of this.aliases.keys()) {
      if (
        (path === alias || (path.startsWith(alias) && path[alias.length] === "/")) &&
        (best === null || alias.length > best.length)
      ) {
        best = alias;
      }
    }
    return best === null ? null : this.aliases.get(best)! + path.slice(best.length);
  }

  /** The first path the alias would serve that is already a route, or null. */
  private collision(endpointPath: string, aliasPath: string): string | null {
    if (this.direct(aliasPath)) return aliasPath;
    const base = endpointPath + "/";
    for (const p of this.paths()) {
      if (!p.startsWith(base)) continue;
      const mirrored = aliasPath + p.slice(endpointPath.length);
      if (this.direct(mirrored)) return mirrored;
    }
    return null;
  }
}
