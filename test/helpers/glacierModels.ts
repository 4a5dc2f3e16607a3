/**
 * The hosted Data API's response models, read from `@avalabs/glacier-sdk`'s own type declarations with the
 * TypeScript compiler, so that a test can hold an answer against the model the SDK's method declares: every
 * required field present, every field one the model has, every value of the declared type (enum members, literals,
 * arrays, nested models, unions: some member must fit whole).
 */
import {createRequire} from "node:module";
import ts from "typescript";

const require = createRequire(import.meta.url);

/** What a checked answer may do beyond the SDK's models, each keyed by the enum's or model's name. */
export interface Allowances {
  /** Values accepted beyond an enum's members (the dev network is "local", a network the hosted API lacks). */
  extraValues?: Readonly<Record<string, readonly unknown[]>>;
  /** Required fields an answer may leave out: what docs/api/data-api.md lists as omitted. */
  omitted?: Readonly<Record<string, readonly string[]>>;
  /** Fields an answer may add: the extensions the API pages (docs/api/) list. */
  extraFields?: Readonly<Record<string, readonly string[]>>;
}

export class GlacierModels {
  private readonly checker: ts.TypeChecker;
  private readonly classes = new Map<string, ts.ClassDeclaration>();

  constructor(private readonly allow: Allowances = {}) {
    const dts = require.resolve("@avalabs/glacier-sdk/dist/index.d.ts");
    const program = ts.createProgram([dts], {strict: true, noEmit: true, skipLibCheck: true, types: []});
    this.checker = program.getTypeChecker();
    const source = program.getSourceFile(dts);
    if (source === undefined) throw new Error(`cannot read ${dts}`);
    for (const s of source.statements)
      if (ts.isClassDeclaration(s) && s.name !== undefined) this.classes.set(s.name.text, s);
  }

  /** The problems of `value` as the answer of `Service.method` (empty when it fits the model). */
  check(service: string, method: string, value: unknown): string[] {
    const errors: string[] = [];
    this.checkType(value, this.answerType(service, method), "$", errors);
    return errors.slice(0, 20);
  }

  /** `T` of the method's `CancelablePromise<T>`. */
  private answerType(service: string, method: string): ts.Type {
    const cls = this.classes.get(service);
    if (cls === undefined) throw new Error(`glacier-sdk has no class ${service}`);
    const decl = cls.members.find(
      (m): m is ts.MethodDeclaration => ts.isMethodDeclaration(m) && m.name.getText() === method,
    );
    if (decl === undefined) throw new Error(`glacier-sdk's ${service} has no method ${method}`);
    const sig = this.checker.getSignatureFromDeclaration(decl)!;
    const promise = this.checker.getReturnTypeOfSignature(sig) as ts.TypeReference;
    const [answer] = this.checker.getTypeArguments(promise);
    if (answer === undefined) throw new Error(`${service}.${method} does not return CancelablePromise<T>`);
    return answer;
  }

  private checkType(value: unknown, type: ts.Type, at: string, errors: string[]): void {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    if (type.isUnion()) return this.checkUnion(value, type, at, errors);
    const want = this.checker.typeToString(type);
    const wrong = (): void => void errors.push(`${at}: ${JSON.stringify(value)?.slice(0, 80)} is not ${want}`);
    if (type.isStringLiteral() || type.isNumberLiteral()) return value === type.value ? undefined : wrong();
    if (f & ts.TypeFlags.BooleanLiteral) return value === (want === "true") ? undefined : wrong();
    if (f & ts.TypeFlags.String) return typeof value === "string" ? undefined : wrong();
    if (f & ts.TypeFlags.Number) return typeof value === "number" ? undefined : wrong();
    if (f & ts.TypeFlags.Boolean) return typeof value === "boolean" ? undefined : wrong();
    if (f & ts.TypeFlags.Null) return value === null ? undefined : wrong();
    if (f & ts.TypeFlags.Undefined) return value === undefined ? undefined : wrong();
    if (this.checker.isArrayType(type)) {
      if (!Array.isArray(value)) return wrong();
      const [item] = this.checker.getTypeArguments(type as ts.TypeReference);
      value.forEach((v, i) => this.checkType(v, item!, `${at}[${i}]`, errors));
      return;
    }
    if (f & ts.TypeFlags.Object || type.isIntersection()) return this.checkObject(value, type, at, errors, wrong);
    errors.push(`${at}: the model's type ${want} is not one this checker knows`);
  }

  private checkUnion(value: unknown, type: ts.UnionType, at: string, errors: string[]): void {
    const name = (type.aliasSymbol ?? type.symbol)?.name;
    if (name !== undefined && this.allow.extraValues?.[name]?.includes(value)) return;
    let best: string[] | undefined;
    for (const member of type.types) {
      const mine: string[] = [];
      this.checkType(value, member, at, mine);
      if (mine.length === 0) return;
      if (best === undefined || mine.length < best.length) best = mine;
    }
    const names = type.types.map((t) => this.checker.typeToString(t));
    // An enum's or a literal union's members each fail alone: name the union once instead of its closest member.
    if (type.types.every((t) => t.isLiteral() || t.flags & ts.TypeFlags.BooleanLiteral)) {
      errors.push(
        `${at}: ${JSON.stringify(value)} is not one of ${type.types.map((t) => (t.isLiteral() ? JSON.stringify(t.value) : this.checker.typeToString(t))).join(", ")}`,
      );
    } else {
      errors.push(`${at}: fits none of ${names.join(" | ")}; closest:`, ...best!.map((e) => `  ${e}`));
    }
  }

  private checkObject(value: unknown, type: ts.Type, at: string, errors: string[], wrong: () => void): void {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return wrong();
    const record = value as Record<string, unknown>;
    const props = this.checker.getPropertiesOfType(type);
    const index = this.checker.getIndexInfosOfType(type)[0];
    const known = new Set<string>();
    const model = this.checker.typeToString(type);
    const omitted = this.allow.omitted?.[model] ?? [];
    const extra = this.allow.extraFields?.[model] ?? [];
    for (const p of props) {
      known.add(p.name);
      const v = record[p.name];
      if (v === undefined) {
        if (!(p.flags & ts.SymbolFlags.Optional) && !omitted.includes(p.name)) errors.push(`${at}.${p.name}: missing`);
        continue;
      }
      this.checkType(v, this.checker.getTypeOfSymbol(p), `${at}.${p.name}`, errors);
    }
    for (const [k, v] of Object.entries(record)) {
      if (known.has(k) || extra.includes(k)) continue;
      if (index !== undefined) this.checkType(v, index.type, `${at}.${k}`, errors);
      else errors.push(`${at}.${k}: not a field of ${model}`);
    }
  }
}
