/** The prefix of the line the bench-only stub entry prints once it listens, followed by its memory as JSON. */
export const READY_LINE = 'bench-ready '
