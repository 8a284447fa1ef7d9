/**
 * Reads the few words a conformance report uses for an answer it observed (`400 Error (code "invalid_limit")`,
 * `200, 3 pets`, `201 Pet (id 7)`, `405 (Allow: GET)`, `404 {"detail":"Not Found"}`) back into data.
 */

/** An answer a report observed, as data. */
export interface Observed {
  status: number
  /** error: an Error body; pets: a list; pet: one Pet; json: another JSON body (kept in `body`); bare: no JSON body. */
  kind: 'error' | 'pets' | 'pet' | 'json' | 'bare'
  /** The Error's `code`. */
  code?: string
  /** The body, for `json`. */
  body?: string
  /** The `Allow` header it carried. */
  allow?: string
}

const ALLOW = / \(Allow: ([^)]*)\)$/

/** An `Allow` value (RFC 9110 §10.2.1): methods, each a token, separated by commas; or none. */
const METHODS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+( *, *[!#$%&'*+.^_`|~0-9A-Za-z-]+)*)?$/

/** An Error code the twin may send and the log may show: printable ASCII, as the report writes a service's codes. */
function parsedCode(quoted: string): string | undefined {
  try {
    const code = JSON.parse(quoted) as string
    return /^[\x20-\x7e]*$/.test(code) ? code : undefined
  } catch {
    return undefined // a raw control character in the quotes: no report this kit wrote
  }
}

/** The answer in `text`, or `undefined` when the words say no answer came (a timeout, a reset) or are not read. */
export function readAnswer(text: string): Observed | undefined {
  let rest = text
  let allow: string | undefined
  const allowed = ALLOW.exec(rest)
  if (allowed) {
    allow = allowed[1]
    rest = rest.slice(0, allowed.index)
    if (!METHODS.test(allow!)) return undefined // a header the twin could not send
  }
  const head = /^([1-5][0-9][0-9])(?=$|[ ,])/.exec(rest)
  if (!head) return undefined
  const status = Number(head[1])
  const tail = rest.slice(3)
  const withAllow = (answer: Observed): Observed => (allow === undefined ? answer : { ...answer, allow })
  if (tail === '') return withAllow({ status, kind: 'bare' })
  if (/^, [0-9]+ pets?\b/.test(tail)) return withAllow({ status, kind: 'pets' })
  const error = /^ Error \(code ("(?:[^"\\]|\\.)*")\)/.exec(tail)
  if (error) {
    const code = parsedCode(error[1]!)
    return code === undefined ? undefined : withAllow({ status, kind: 'error', code })
  }
  if (/^ Pet \(id -?[0-9]+\)/.test(tail)) return withAllow({ status, kind: 'pet' })
  if (tail.startsWith(' {') || tail.startsWith(' [')) {
    const body = tail.slice(1)
    try {
      JSON.parse(body)
      return withAllow({ status, kind: 'json', body })
    } catch {
      return undefined // cut short in the report: not a body the twin can send
    }
  }
  return undefined
}

/** The same answer in the report's words, for messages: `400 Error (code "x")`. */
export function showAnswer(answer: Observed): string {
  const allow = answer.allow === undefined ? '' : ` (Allow: ${answer.allow})`
  switch (answer.kind) {
    case 'error':
      return `${answer.status} Error (code ${JSON.stringify(answer.code)})${allow}`
    case 'pets':
      return `${answer.status}, a list${allow}`
    case 'pet':
      return `${answer.status} Pet${allow}`
    case 'json':
      return `${answer.status} ${answer.body}${allow}`
    case 'bare':
      return `${answer.status}${allow}`
  }
}

/** True for an answer the twin may give where the interface is silent: never a 5xx, never a success that is no list or pet. */
export function isReasonable(answer: Observed): boolean {
  // Nor an interim 1xx, which is no final answer, nor a 204 or 304 with a body, which HTTP gives none (RFC 9110 §15).
  if (answer.status < 200 || answer.status >= 500) return false
  return !((answer.status === 204 || answer.status === 304) && answer.kind !== 'bare')
}

/**
 * A text shown on a terminal with its control characters escaped (`\u001b`): a report's strings go into the start
 * message and its error lines, and an escape sequence there could clear the screen or forge a line.
 */
export function inert(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
