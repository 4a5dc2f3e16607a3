/**
 * The JSON-RPC error catalogue and the one place errors become wire objects.
 *
 * Where avaext departs from AvalancheGo (docs/api/http.md): unknown methods are -32601 and malformed params -32602
 * with a precise reason; application errors stay -32000 with AvalancheGo's exact message texts so clients that
 * match on them keep working; anything unexpected is -32603 with details only in the log.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** AvalancheGo's code for every application error (gorilla/rpc json2 E_SERVER). */
  Application: -32000,
} as const;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A JSON-RPC error this server replies with: a handler throws it, toRpcError makes it the answer's error object.
 * The errors of calls this process makes to a node are evm/rpc.ts's RpcCallError.
 */
export class RpcErrorReply extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcErrorReply";
  }

  toObject(): RpcErrorObject {
    return this.data === undefined
      ? {code: this.code, message: this.message}
      : {code: this.code, message: this.message, data: this.data};
  }
}

/** -32000 with an AvalancheGo message text, e.g. `no container at index 5`. */
export function appError(message: string): RpcErrorReply {
  return new RpcErrorReply(ErrorCode.Application, message);
}

/** -32602 naming the field: `invalid params: <field>: <reason>`. */
export function invalidParams(field: string | null, reason: string): RpcErrorReply {
  return new RpcErrorReply(
    ErrorCode.InvalidParams,
    field ? `invalid params: ${field}: ${reason}` : `invalid params: ${reason}`,
  );
}

export function methodNotFound(method: string): RpcErrorReply {
  return new RpcErrorReply(ErrorCode.MethodNotFound, `method not found: ${method}`);
}

export function invalidRequest(reason: string): RpcErrorReply {
  return new RpcErrorReply(ErrorCode.InvalidRequest, `invalid request: ${reason}`);
}

export function parseError(reason: string): RpcErrorReply {
  return new RpcErrorReply(ErrorCode.ParseError, `parse error: ${reason}`);
}

/**
 * Maps anything a handler threw to an error object. RpcErrors pass as they are; any other throw is a bug or an
 * unexpected failure: the caller logs it, the client sees only `internal error`.
 */
export function toRpcError(err: unknown): {error: RpcErrorObject; expected: boolean} {
  if (err instanceof RpcErrorReply) return {error: err.toObject(), expected: err.code !== ErrorCode.InternalError};
  return {error: {code: ErrorCode.InternalError, message: "internal error"}, expected: false};
}
