/**
 * Parsers for the header grammars the advice checks read: challenges (RFC 9110 §11.6.1), structured-field
 * dates (RFC 9651 §3.3.7, used by Deprecation, RFC 9745) and IMF-fixdate (RFC 9110 §5.6.7, used by Sunset).
 */

/** One authentication challenge. */
export interface Challenge {
  scheme: string
  token68?: string
  params: Record<string, string>
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*/y
const QUOTED = /"((?:[^"\\]|\\.)*)"/y

/** The challenges of a WWW-Authenticate value, or undefined when it does not follow the grammar. */
export function parseChallenges(value: string): Challenge[] | undefined {
  let i = 0
  const at = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i
    const m = re.exec(value)
    if (m) i = re.lastIndex
    return m
  }
  const skip = (chars: string) => {
    while (i < value.length && chars.includes(value[i]!)) i++
  }
  const atEndOfItem = () => {
    let j = i
    while (j < value.length && ' \t'.includes(value[j]!)) j++
    return j === value.length || value[j] === ','
  }
  // auth-param = token BWS "=" BWS ( token / quoted-string ), followed by a comma or the end.
  const param = (): [string, string] | undefined => {
    const start = i
    const name = at(TOKEN)
    skip(' \t')
    if (name && value[i] === '=') {
      i++
      skip(' \t')
      const quoted = at(QUOTED)
      const plain = quoted ? null : at(TOKEN)
      if ((quoted || plain) && atEndOfItem())
        return [name[0].toLowerCase(), quoted ? quoted[1]!.replace(/\\(.)/g, '$1') : plain![0]]
    }
    i = start
    return undefined
  }
  const challenges: Challenge[] = []
  skip(' \t,')
  while (i < value.length) {
    const scheme = at(TOKEN)
    if (!scheme) return undefined
    const challenge: Challenge = { scheme: scheme[0], params: {} }
    challenges.push(challenge)
    if (value[i] === ' ') {
      skip(' ')
      const first = param()
      if (first) {
        challenge.params[first[0]] = first[1]
        for (;;) {
          const mark = i
          skip(' \t')
          if (value[i] !== ',') break
          skip(' \t,')
          const next = param()
          if (!next) {
            i = mark
            break
          }
          challenge.params[next[0]] = next[1]
        }
      } else if (!atEndOfItem()) {
        const token68 = at(TOKEN68)
        if (!token68 || !atEndOfItem()) return undefined
        challenge.token68 = token68[0]
      }
    }
    skip(' \t')
    if (i < value.length && value[i] !== ',') return undefined
    skip(' \t,')
  }
  return challenges.length ? challenges : undefined
}

/** The seconds of a structured-field Date (`@1764892800`), or undefined when the text is not one. */
export function parseSfDate(value: string): number | undefined {
  // sf-date = "@" sf-integer; sf-integer = ["-"] 1*15DIGIT. Fields may carry surrounding spaces.
  const m = /^\s*@(-?\d{1,15})\s*$/.exec(value)
  return m ? Number(m[1]) : undefined
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const IMF_FIXDATE =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/

/** The instant of an IMF-fixdate (`Thu, 05 Dec 2030 00:00:00 GMT`), or undefined when the text is not one. */
export function parseImfFixdate(value: string): Date | undefined {
  const m = IMF_FIXDATE.exec(value.trim())
  if (!m) return undefined
  const [, day, dd, mon, yyyy, hh, mm, ss] = m
  const date = new Date(Date.UTC(Number(yyyy), MONTHS.indexOf(mon!), Number(dd), Number(hh), Number(mm), Number(ss)))
  // Reject dates that roll over (31 Feb), out-of-range times, and a day-name that does not match the date.
  if (date.getUTCDate() !== Number(dd) || date.getUTCHours() !== Number(hh) || date.getUTCMinutes() !== Number(mm))
    return undefined
  if (Number(ss) > 60 || DAYS[date.getUTCDay()] !== day) return undefined
  return date
}
