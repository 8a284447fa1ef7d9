/** Misbehaviour at the connection that a response can ask of the edge that sends it (server.ts, fetch.ts). */

/**
 * `reset` aborts the connection (TCP RST), `empty` closes it without a byte, `hang` never answers,
 * `malformed-chunk` sends the head and then a broken chunked body, `trickle` sends the body a few bytes at a time.
 */
export type SocketDirective = 'reset' | 'empty' | 'hang' | 'malformed-chunk' | 'trickle'

/** The socket directives, in the order help texts list them. */
export const SOCKET_DIRECTIVES: readonly SocketDirective[] = ['reset', 'empty', 'hang', 'malformed-chunk', 'trickle']

/** How long a trickled body takes to arrive, when the response does not say. */
export const TRICKLE_MS = 2_000
