/**
 * OpenAI-style errors, shaped as recent vLLM sends them:
 *   {"error": {"message": "...", "type": "BadRequestError", "param": null, "code": 400}}
 * `ApiError` is thrown anywhere inside a route; app.ts turns it (and anything unexpected, as a 500
 * that names no internals) into this JSON with the matching HTTP status.
 */
export type ApiErrorType = 'BadRequestError' | 'NotFoundError' | 'RequestEntityTooLargeError' | 'ServiceUnavailableError' | 'InternalServerError' | 'MethodNotAllowedError';

const TYPES: Record<number, ApiErrorType> = {
  400: 'BadRequestError',
  404: 'NotFoundError',
  405: 'MethodNotAllowedError',
  413: 'RequestEntityTooLargeError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 404 | 405 | 413 | 500 | 503,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get type(): ApiErrorType {
    return TYPES[this.status];
  }
}

export function errorBody(status: number, message: string, param: string | null = null) {
  return { error: { message, type: TYPES[status] ?? 'InternalServerError', param, code: status } };
}

export function errorResponse(e: ApiError): Response {
  return Response.json(errorBody(e.status, e.message, e.param), { status: e.status });
}

export const badRequest = (message: string, param: string | null = null) => new ApiError(400, message, param);
