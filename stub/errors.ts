/** The stub's one error type and the one function that writes the spec's Error body. */

/** HTTP statuses the stub can answer with an Error body (429 and 503 only when a client asks for them). */
export type ErrorStatus = 400 | 401 | 404 | 405 | 408 | 429 | 431 | 503

/** A request the stub refuses: HTTP status, a distinct machine-readable `code`, and a plain sentence. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The spec's Error body `{code, message, status}` (status repeats the HTTP status), as JSON text. */
export function errorBody(error: ApiError): string {
  return JSON.stringify({ code: error.code, message: error.message, status: error.status })
}
