/**
 * The operations the hosted Data API's two SDKs declare, read from their shipped files (no list copied by hand):
 * `@avalabs/glacier-sdk`'s generated services (the request each method sends, in its `.js`; its answer's model, in
 * its `.d.ts`) and `@avalanche-sdk/chainkit`'s `src/funcs` (path, method, query, operation ID, success status and
 * model of each call). Models are read with the TypeScript parser (syntax only): a model's top-level fields, and
 * which of them are required (no `?`).
 */
import {readFileSync, readdirSync} from "node:fs";
import {createRequire} from "node:module";
import path from "node:path";
import ts from "typescript";

export interface SdkOperation {
  sdk: "glacier-sdk" | "chainkit";
  /** glacier-sdk: `Service.method`; chainkit: its operation ID. */
  name: string;
  method: string;
  /** `{name}` form, as OpenAPI writes it. */
  path: string;
  query: string[];
  hasBody: boolean;
  /** The success status the SDK accepts (glacier-sdk takes any 2xx: 200). */
  status: number;
  /** The success answer's models (several: the SDK's `A | B`). */
  models: string[];
  /** The fields every one of those models requires. */
  required: string[];
  /** The fields any of them has. */
  fields: string[];
}

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

/** Every type alias of the files under `dir`, by `<scope>.<name>` (chainkit's `components.X` and `operations.X`). */
function typeAliases(
  dir: string,
  ext: string,
  scope: string,
  out = new Map<string, ts.TypeNode>(),
): Map<string, ts.TypeNode> {
  for (const f of readdirSync(dir).filter((x) => x.endsWith(ext))) {
    const src = ts.createSourceFile(f, readFileSync(path.join(dir, f), "utf8"), ts.ScriptTarget.ES2022, true);
    for (const s of src.statements) if (ts.isTypeAliasDeclaration(s)) out.set(`${scope}.${s.name.text}`, s.type);
  }
  return out;
}

interface Fields {
  names: string[];
  required: string[];
}

/** A model's key: a qualified reference's own scope, else the scope it is written in. */
function keyOf(ref: ts.EntityName, scope: string): string {
  return ts.isQualifiedName(ref) ? `${ref.left.getText()}.${ref.right.text}` : `${scope}.${ref.text}`;
}

class Models {
  constructor(private readonly aliases: Map<string, ts.TypeNode>) {}

  /** The models a type stands for (a union's members; a Speakeasy `{result: T}` wrapper's T), as keys. */
  members(node: ts.TypeNode, scope: string): string[] {
    if (ts.isParenthesizedTypeNode(node)) return this.members(node.type, scope);
    if (node.kind === ts.SyntaxKind.VoidKeyword || node.kind === ts.SyntaxKind.AnyKeyword) return [];
    if (ts.isUnionTypeNode(node)) return node.types.flatMap((t) => this.members(t, scope));
    if (ts.isTypeReferenceNode(node)) {
      const key = keyOf(node.typeName, scope);
      const target = this.aliases.get(key);
      if (target === undefined) return [];
      const next = key.split(".")[0]!;
      if (ts.isUnionTypeNode(target) || this.isWrapper(target)) return this.members(target, next);
      return [key];
    }
    if (this.isWrapper(node)) return this.members((node.members[0] as ts.PropertySignature).type!, scope);
    if (ts.isIntersectionTypeNode(node) || ts.isTypeLiteralNode(node)) {
      // A model written in place (`A & {...}`), kept under a key of its own.
      const key = `${scope}.#${this.aliases.size}`;
      this.aliases.set(key, node);
      return [key];
    }
    throw new Error(`an answer type the reader does not know: ${ts.SyntaxKind[node.kind]}`);
  }

  private isWrapper(node: ts.TypeNode): node is ts.TypeLiteralNode {
    return ts.isTypeLiteralNode(node) && node.members.length === 1 && node.members[0]!.name?.getText() === "result";
  }

  fields(key: string): Fields {
    const out: Fields = {names: [], required: []};
    const add = (n: ts.TypeNode | undefined, scope: string): void => {
      if (n === undefined) throw new Error(`no model ${key}`);
      if (ts.isIntersectionTypeNode(n)) return n.types.forEach((t) => add(t, scope));
      if (ts.isTypeReferenceNode(n)) {
        const k = keyOf(n.typeName, scope);
        return add(this.aliases.get(k), k.split(".")[0]!);
      }
      if (!ts.isTypeLiteralNode(n)) throw new Error(`model ${key} is not an object type`);
      for (const m of n.members) {
        if (!ts.isPropertySignature(m)) continue;
        const field = m.name.getText().replace(/^["']|["']$/g, "");
        out.names.push(field);
        if (m.questionToken === undefined) out.required.push(field);
      }
    };
    add(this.aliases.get(key), key.split(".")[0]!);
    return out;
  }

  /** The fields any member has. */
  names(models: string[]): string[] {
    return [...new Set(models.flatMap((m) => this.fields(m).names))].sort();
  }

  /** The fields every member requires. */
  required(models: string[]): string[] {
    const sets = models.map((m) => new Set(this.fields(m).required));
    return [...sets[0]!].filter((f) => sets.every((s) => s.has(f))).sort();
  }
}

const keysOf = (literal: string | undefined): string[] =>
  (literal ?? "")
    .split(",")
    .map((kv) => kv.split(":")[0]!.trim().replace(/"/g, ""))
    .filter((k) => k !== "");

export function glacierSdkOperations(): SdkOperation[] {
  const root = path.join(packageDir("@avalabs/glacier-sdk"), "esm/generated");
  const models = new Models(typeAliases(path.join(root, "models"), ".d.ts", "models"));
  const out: SdkOperation[] = [];
  const servicesDir = path.join(root, "services");
  for (const f of readdirSync(servicesDir).filter((x) => x.endsWith(".js"))) {
    const service = f.slice(0, -3);
    const js = readFileSync(path.join(servicesDir, f), "utf8");
    const dts = ts.createSourceFile(
      f,
      readFileSync(path.join(servicesDir, `${service}.d.ts`), "utf8"),
      ts.ScriptTarget.ES2022,
      true,
    );
    const answers = new Map<string, ts.TypeNode>();
    for (const s of dts.statements) {
      if (!ts.isClassDeclaration(s)) continue;
      for (const m of s.members) {
        if (ts.isMethodDeclaration(m) && m.type && ts.isTypeReferenceNode(m.type))
          answers.set(m.name.getText(dts), m.type.typeArguments![0]!);
      }
    }
    const re =
      /(\w+)\((?:\{[^)]*\})?\)\{return this\.httpRequest\.request\(\{method:"(\w+)",url:"([^"]+)"(?:,path:\{([^}]*)\})?(?:,query:\{([^}]*)\})?(,body:)?/g;
    for (const m of js.matchAll(re)) {
      const answer = answers.get(m[1]!);
      if (answer === undefined) throw new Error(`${service}.${m[1]}: no declared answer`);
      const names = models.members(answer, "models");
      out.push({
        sdk: "glacier-sdk",
        name: `${service}.${m[1]}`,
        method: m[2]!,
        path: m[3]!,
        query: keysOf(m[5]).sort(),
        hasBody: m[6] !== undefined,
        status: 200,
        models: names.map((k) => k.replace(/^\w+\./, "")),
        required: names.length === 0 ? [] : models.required(names),
        fields: models.names(names),
      });
    }
  }
  return out;
}

export function chainkitOperations(): SdkOperation[] {
  const root = path.join(packageDir("@avalanche-sdk/chainkit"), "src");
  const aliases = typeAliases(path.join(root, "models/components"), ".ts", "components");
  const models = new Models(typeAliases(path.join(root, "models/operations"), ".ts", "operations", aliases));
  const out: SdkOperation[] = [];
  const funcsDir = path.join(root, "funcs");
  for (const f of readdirSync(funcsDir).filter((x) => x.endsWith(".ts"))) {
    const s = readFileSync(path.join(funcsDir, f), "utf8");
    if (!s.includes("operationID:")) continue; // a local helper (validateWebhook checks a delivery's signature)
    const pathText = [...s.matchAll(/pathToFunc\(\s*"([^"]+)"/g)].map((m) => m[1]!);
    const operationId = s.match(/operationID: "([^"]+)"/)?.[1];
    const method = s.match(/method: "(\w+)"/)?.[1];
    if (pathText.length !== 1 || operationId === undefined || method === undefined) throw new Error(`${f}: not read`);
    const answer = s.match(/M\.json\(\s*(\d+),\s*(components|operations)\.(\w+)\$inboundSchema/);
    const names = answer ? models.members(ts.factory.createTypeReferenceNode(answer[3]!), answer[2]!) : [];
    out.push({
      sdk: "chainkit",
      name: operationId,
      method,
      path: pathText[0]!,
      query: [...(s.match(/encodeFormQuery\(\{([^}]*)\}/)?.[1] ?? "").matchAll(/"(\w+)":/g)].map((m) => m[1]!).sort(),
      hasBody: /const body = (?!null)/.test(s),
      status: answer ? Number(answer[1]) : 200,
      models: names.map((k) => k.replace(/^\w+\./, "")),
      required: names.length === 0 ? [] : models.required(names),
      fields: models.names(names),
    });
  }
  return out;
}
