/**
 * The data API's one error type and its body (seed 1, Errors): `{"message", "statusCode", "error"}`. Messages name
 * the parameter and the reason (`pageSize: must be an integer in [1,100]`).
 */

const STATUS_NAMES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

export class DataApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "DataApiError";
  }

  /** The answer's body: the seed's error body, or an endpoint's own (the health check's). */
  body(): Record<string, unknown> {
    return {message: this.message, statusCode: this.status, error: statusName(this.status)};
  }
}

/** 503 with a body of the endpoint's own model rather than the error body (the SDK's HealthCheckResultDto). */
export class UnavailableWithBody extends DataApiError {
  constructor(
    message: string,
    private readonly answer: Record<string, unknown>,
  ) {
    super(503, message);
  }

  override body(): Record<string, unknown> {
    return this.answer;
  }
}

export function statusName(status: number): string {
  return STATUS_NAMES[status] ?? "Error";
}

/** 400 naming the parameter: `<param>: <reason>`. */
export function badRequest(param: string, reason: string): DataApiError {
  return new DataApiError(400, `${param}: ${reason}`);
}

export function notFound(message: string): DataApiError {
  return new DataApiError(404, message);
}

export function unavailable(message: string): DataApiError {
  return new DataApiError(503, message);
}

/** 502: a service this one relies on (a P-chain node, an external aggregator) failed or answered wrongly. */
export function badGateway(message: string): DataApiError {
  return new DataApiError(502, message);
}
