/**
 * Who may reach the stub from a browser. A page on another site can send "simple" requests without asking first,
 * and a DNS-rebinding page can reach a loopback port under its own name; so:
 * - a request whose `Host` names neither this machine's loopback, nor the bound address, nor a name allowed with
 *   `--allow-host` is refused with 421 Misdirected Request (RFC 9110 §15.5.20), at the network edge;
 * - the admin API refuses a request from an `Origin` it was not told to allow, and a change sent as a form or as
 *   text (what a page can send without a preflight), and names no origin in `Access-Control-Allow-Origin` unless
 *   `--admin-origin` allowed it;
 * - the interface (`/v1`) answers the pages of this machine (an origin on a loopback name or address, the bound address
 *   or a name allowed with `--allow-host`) and of origins named with `--allow-origin`, reflecting the origin with
 *   `Access-Control-Allow-Credentials: true` so that pages sending cookies (`credentials: 'include'`) can read its
 *   answers; a page of any other site is refused its preflight and can read nothing (see {@link PageOrigins}).
 */
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import type { AppRequest, AppResponse, RequestHeaders } from './app.js'
import { corsRemoved } from './cors.js'
import { DEFAULT_API_KEY } from './auth.js'
import { ApiError, errorBody } from './errors.js'

/** The names (and addresses) a stub on `bound` answers for, besides those in `allowed`; `*` in it allows any. */
export class HostCheck {
  readonly #bound: string
  readonly #allowed: Set<string>
  readonly #any: boolean
  /** The last Host found allowed: clients send the same one on every request, so the check is one comparison. */
  #last: string | undefined

  /** The machine's own addresses, by number (see {@link ownAddresses}). */
  readonly #own: () => ReadonlySet<string>

  constructor(bound: string, allowed: readonly string[] = [], own: () => ReadonlySet<string> = ownAddresses) {
    this.#own = own
    this.#bound = hostName(bound)
    // As a browser writes the name (`münchen.test` as `xn--mnchen-3ya.test`), so that the Host it sends is found.
    this.#allowed = new Set(allowed.map((name) => canonicalName(name) ?? hostName(name)))
    this.#any = allowed.includes('*')
  }

  /**
   * True when a request with this `Host` is answered. A request with none (HTTP/1.0) is: no browser sends that. A
   * request a browser made (`fromPage`: it names its `Origin` or its `Sec-Fetch-Site`) is answered only under a name
   * allowed by name, never one `--allow-host *` alone lets in: a DNS-rebinding page is on its own origin there, and
   * would read the admin API and create pets with the public default key as a page of the stub's own.
   */
  allows(host: string | string[] | undefined, fromPage = false): boolean {
    if (host === undefined || host === this.#last) return true
    if (typeof host !== 'string') return false
    const name = hostName(host)
    // A Host spelled as a browser would not send it (`127.1`, `[0:0:0:0:0:0:0:1]`, `localhost.:4010`) is read again the
    // way a browser's URL parser would have written it, so that curl and scripts are answered whatever their spelling.
    const canonical = this.#answers(name, false) ? name : canonicalName(host)
    if (canonical !== undefined && this.#answers(canonical, false)) {
      this.#last = host // only a name allowed by name: one let in by `*` is checked again for pages each time
      return true
    }
    return this.#any && !fromPage
  }

  /**
   * True when a page served from `authority` (an origin's host and port) is one of this machine's or of a name the
   * stub answers for by name: as {@link allows}, except that `--allow-host *` (a proxy in front) lets in no page.
   */
  servesPagesOf(authority: string): boolean {
    return this.pagesOf(authority) !== undefined
  }

  /**
   * How a page served from `authority` is this machine's: by its `name` (loopback, the bound address, a name allowed),
   * which holds for good, or by being one of the machine's `address`es now, which may change; `undefined` when it is not.
   * Bound to every address, a request may name any address the machine is reached by (behind a NAT or a port forward,
   * one it does not know), but a page is of this machine only on one of the addresses it has: a page of
   * `http://203.0.113.5`, a site like any other, gets no grant.
   */
  pagesOf(authority: string): 'name' | 'address' | undefined {
    const name = hostName(authority)
    const canonical = canonicalName(authority)
    for (const candidate of canonical === undefined ? [name] : [name, canonical]) {
      if (this.#allowed.has(candidate) || candidate === this.#bound || isLoopback(candidate)) return 'name'
      if (this.#wild(candidate) && this.#isOwn(candidate)) return 'address'
    }
    return undefined
  }

  /** True for one of the machine's addresses (see {@link ownAddresses}). */
  #isOwn(address: string): boolean {
    // An IPv4 address written IPv6-mapped, as a URL parser writes it (`[::ffff:c000:202]` is 192.0.2.2).
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address)
    if (mapped === null) return this.#own().has(address)
    const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)]
    return this.#own().has([high >> 8, high & 255, low >> 8, low & 255].join('.')) || this.#own().has(address)
  }

  #answers(name: string, any = this.#any): boolean {
    return any || this.#allowed.has(name) || name === this.#bound || isLoopback(name) || this.#wild(name)
  }

  /** Bound to every address (`0.0.0.0`, `::`), the stub answers any address of the machine by number, never a name. */
  #wild(name: string): boolean {
    return (this.#bound === '0.0.0.0' || this.#bound === '::') && isIP(name) !== 0
  }
}

/** How long the machine's addresses are taken as read: they change when a network comes or goes. */
const OWN_ADDRESSES_MS = 5_000
let ownRead: { at: number; addresses: ReadonlySet<string> } | undefined

/** The machine's addresses by number, as a URL parser writes them (IPv6 in lower case, without a zone); read anew every few seconds. */
export function ownAddresses(): ReadonlySet<string> {
  const now = performance.now()
  if (ownRead === undefined || now - ownRead.at > OWN_ADDRESSES_MS) {
    const addresses = new Set<string>()
    for (const list of Object.values(networkInterfaces()))
      for (const { address } of list ?? []) addresses.add(address.toLowerCase().replace(/%.*$/, ''))
    ownRead = { at: now, addresses }
  }
  return ownRead.addresses
}

/**
 * A Host (or bound address) without its port and brackets, in lower case: `[::1]:4010` -> `::1`. What follows the name
 * must be a port: a value with anything else there (`localhost:evil.example`, `[::1]evil.example`) is given back whole,
 * which names no host the stub answers for.
 */
export function hostName(host: string): string {
  const text = host.trim().toLowerCase()
  if (text.startsWith('[')) {
    const end = text.indexOf(']')
    if (end === -1) return text // `[::1` names no host: never the name inside
    return PORT.test(text.slice(end + 1)) ? text.slice(1, end) : text
  }
  const colon = text.indexOf(':')
  // One colon is a port; more are a bare IPv6 address.
  if (colon === -1 || colon !== text.lastIndexOf(':')) return text.replace(/\.$/, '')
  return PORT.test(text.slice(colon)) ? text.slice(0, colon) : text
}

/** What may follow a host's name in `Host`: nothing, or a port. */
const PORT = /^(?::[0-9]*)?$/

/**
 * The host of a `Host` value as the WHATWG URL parser reads it (IPv4 in any notation written in dotted decimal, IPv6
 * compressed, lower case), without brackets or a final dot; `undefined` when it is no host and port. Nothing but the
 * host may be in the value: a user, a path or a query there is refused, not read past.
 */
function canonicalName(host: string): string | undefined {
  if (/[@/\\?#\s]/.test(host.trim())) return undefined
  try {
    const name = new URL(`http://${host.trim()}/`).hostname
    return (name.startsWith('[') ? name.slice(1, -1) : name).replace(/\.$/, '')
  } catch {
    return undefined
  }
}

/** `localhost` and its subdomains (RFC 6761 §6.3), 127.0.0.0/8, `::1`. */
export function isLoopback(name: string): boolean {
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '::1' ||
    (isIP(name) === 4 && name.startsWith('127.')) ||
    name === '::ffff:127.0.0.1' ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(name) // the same, IPv4-mapped, as a URL parser writes it
  )
}

/** True for an address to bind that only this machine reaches: `localhost`, `::1`, 127.0.0.0/8. */
export function isLoopbackAddress(address: string): boolean {
  return address === 'localhost' || address === '::1' || address === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(address)
}

/**
 * Why a stub bound to `host`, answering `allowHosts`, would be open to other machines or to pages, or undefined when it
 * is not:
 * - `host-name`: a name to allow that is neither `*` alone nor a host name or address without a port (`*.`, `[*]`,
 *   `*:80` would read as `*` once their dot, brackets or port are dropped, and let in any host without what `*` needs);
 * - `shared-admin-key`: an admin key that is also an API key, or the default API key, which every page knows: the
 *   admin API would be open to whoever may call `/v1`;
 * - `reachable`: an address other machines reach and no admin key: anyone there could reset or read it;
 * - `any-host`: `*` among the allowed hosts and no admin key: a DNS-rebinding page is then on an origin the stub
 *   answers, and its same-origin GET over plain http carries neither Origin nor Sec-Fetch-Site (Chromium sends those
 *   only to trustworthy origins), so nothing tells it from a script's;
 * - `public-key`: `*` and the default API key, which any page knows: such a page would read and create pets.
 */
export function exposureOf(
  host: string,
  allowHosts: readonly string[] = [],
  adminKey: string | undefined,
  apiKeys: readonly string[] = [DEFAULT_API_KEY],
): 'host-name' | 'shared-admin-key' | 'reachable' | 'any-host' | 'public-key' | undefined {
  if (!Array.isArray(allowHosts)) return 'host-name'
  for (let i = 0; i < allowHosts.length; i++) if (!isHostToAllow(allowHosts[i])) return 'host-name' // holes too
  if (sharesAdminKey(adminKey, apiKeys)) return 'shared-admin-key'
  if (adminKey === undefined && !isLoopbackAddress(host)) return 'reachable'
  if (!allowHosts.includes('*')) return undefined
  if (adminKey === undefined) return 'any-host'
  return apiKeys.includes(DEFAULT_API_KEY) ? 'public-key' : undefined
}

/** True for an admin key that also opens `/v1`: one of the API keys, or the default one, which every page knows. */
export function sharesAdminKey(adminKey: string | undefined, apiKeys: readonly string[] = [DEFAULT_API_KEY]): boolean {
  return adminKey !== undefined && (adminKey === DEFAULT_API_KEY || apiKeys.includes(adminKey))
}

/**
 * True for what may be given to allow a host: `*` alone, or a host name or address with no port (`app.test`,
 * `192.168.1.20`, `[fd00::1]`). No other value holds a `*`: there is no pattern of names.
 */
export function isHostToAllow(name: unknown): boolean {
  if (typeof name !== 'string') return false
  if (name === '*' || isIP(name) === 6) return true // `::1` as `[::1]`
  // No comma either: `a,b` is one odd name to a URL parser, never the two names meant.
  if (!/^([^\s/:*,]+|\[[0-9a-f:.]+\])$/i.test(name)) return false
  // As a URL parser reads it: no name at all (`.`) or a `*` (`%2A`) would answer what no one meant.
  const canonical = canonicalName(name)
  return canonical !== undefined && canonical !== '' && !canonical.includes('*')
}

/**
 * True for an origin whose pages may be allowed (`--admin-origin`, `--allow-origin`): `http(s)://host[:port]`, as a
 * browser writes it in `Origin`; for the interface (`ofPages`) also `null` (a page opened from a file, or sandboxed)
 * and `*`. The admin API takes neither: `null` is the origin of a sandboxed frame or a `data:` page on any site.
 */
export function isOriginToAllow(origin: unknown, ofPages: boolean): boolean {
  if (typeof origin !== 'string') return false
  if (ofPages && (origin === '*' || origin === 'null')) return true
  if (!/^https?:\/\/[^/\s@?#\\*]+$/i.test(origin)) return false
  // As a browser writes it, so that it can match: `http://localhost:80` is sent as `http://localhost`.
  return URL.canParse(origin) && new URL(origin).origin === origin.toLowerCase()
}

/**
 * The host a request is for: the authority of a target in absolute form (`GET http://name/v1/pets`, as sent to a
 * proxy), which wins over `Host` (RFC 9112 §3.2.2), or else the `Host` header.
 */
export function hostOf(target: string, host: string | string[] | undefined): string | string[] | undefined {
  if (target.charCodeAt(0) === 47 /* '/' */) return host
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target)
  return authority ? authority[1] : host
}

/**
 * The 421 of a request for a host the stub does not answer for: a DNS-rebinding page, or a name to allow (`fromPage`: a
 * browser's request, which `--allow-host *` does not let in).
 */
export function misdirected(
  host: string | string[] | undefined,
  fromPage = false,
  request?: Pick<AppRequest, 'unrecorded'>,
): AppResponse {
  // A page's (a DNS-rebinding page's, most likely): kept out of the journal and the client report, as another site's.
  if (fromPage && request) request.unrecorded = true
  const shown = typeof host === 'string' ? JSON.stringify(host.slice(0, 100)) : 'given more than once'
  const error = new ApiError(
    421,
    'host_not_allowed',
    `the stub does not answer ${fromPage ? 'pages ' : ''}for the host ${shown}: start it with --allow-host NAME to allow that name${fromPage ? ' (--allow-host * lets in no page)' : ''}`,
  )
  return errorAnswer(error, ['Connection', 'close'])
}

/** An Error answer, as JSON, with `extra` headers after its own. */
function errorAnswer(error: ApiError, extra: string[]): AppResponse {
  const body = errorBody(error)
  const headers = ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), ...extra]
  return { status: error.status, headers, body, code: error.code }
}

/** Content types a page can send without a preflight (the Fetch standard's CORS-safelisted ones). */
const SIMPLE_TYPE = /^\s*(text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i

/** Which origins may use the admin API from a browser: none but the stub's own, unless named. */
export class AdminOrigins {
  readonly #allowed: Set<string>
  readonly #hosts: HostCheck | undefined

  /**
   * `hosts`: the names the stub's server answers for (its {@link HostCheck}); none for a stub with no server (its Fetch
   * handler, in MSW or a test), which no page reaches under a name of its own.
   */
  constructor(allowed: readonly string[] = [], hosts?: HostCheck) {
    this.#allowed = new Set(allowed.map(normalOrigin))
    this.#hosts = hosts
  }

  /** True when the request's `Origin` (if any) may read and change the admin API. */
  allows(origin: string | string[] | undefined, host: string | string[] | undefined): boolean {
    if (origin === undefined) return true // not a browser's cross-site request: scripts, curl, tests
    if (typeof origin !== 'string') return false
    const lower = origin.toLowerCase()
    if (this.#allowed.has(lower)) return true
    // The stub's own origin, as a page it served would send it (only http: the stub serves no TLS), under a name it
    // answers for by name. Not one let in by `--allow-host *` alone: a DNS-rebinding page's origin is its Host too.
    return (
      typeof host === 'string' &&
      lower === `http://${host.toLowerCase()}` &&
      (this.#hosts === undefined || this.#hosts.servesPagesOf(host))
    )
  }

  /**
   * Why a request may not use the admin API from a browser, or `undefined` when it may: a foreign `Origin`, a request a
   * page on another site sent without CORS (which carries no `Origin`), or a change sent with a content type a page can
   * send without asking first.
   */
  refusal(method: string, headers: RequestHeaders): ApiError | undefined {
    const foreign = this.originRefusal(headers)
    if (foreign) return foreign
    // A page's `<img>`, `<script>` or no-cors `fetch` GET carries no `Origin`, but browsers mark it (Fetch Metadata): it
    // could not read the answer, yet would have the stub build it, a whole state of up to 256 MiB each time.
    if (headers.origin === undefined && headers['sec-fetch-site'] === 'cross-site')
      return new ApiError(
        403,
        'cross_site_refused',
        'the admin API does not answer a request a page on another site sent without CORS (Sec-Fetch-Site: cross-site)',
      )
    const type = headers['content-type']
    if (method !== 'GET' && method !== 'HEAD' && typeof type === 'string' && SIMPLE_TYPE.test(type))
      return new ApiError(
        403,
        'simple_request_refused',
        `the admin API takes no ${type.split(';')[0]!.trim()} body, which any web page could send: send application/json or no body`,
      )
    return undefined
  }

  /** The 403 of a request, a preflight too, from a page whose origin may not use the admin API; else `undefined`. */
  originRefusal(headers: RequestHeaders): ApiError | undefined {
    if (this.allows(headers.origin, headers.host)) return undefined
    return new ApiError(
      403,
      'origin_not_allowed',
      `the admin API does not answer pages from ${JSON.stringify(String(headers.origin).slice(0, 100))}: start the stub with --admin-origin ORIGIN to allow one`,
    )
  }

  /** The CORS headers of an admin answer: the origin, when it is allowed by name; none otherwise. */
  corsHeaders(origin: string | string[] | undefined): string[] {
    if (typeof origin !== 'string') return []
    const lower = origin.toLowerCase()
    return this.#allowed.has(lower) ? ['Access-Control-Allow-Origin', origin, 'Vary', 'Origin'] : ['Vary', 'Origin']
  }
}

/**
 * Which pages may call the interface (`/v1`) from a browser: those of this machine (an origin whose host is a loopback
 * name or address, the bound address, or a name allowed with `--allow-host`) and the origins named with `--allow-origin`
 * (`*`: every one). A page of any other site gets no CORS grant: its preflight is refused (403), and what it can send
 * without one is answered with no `Access-Control-Allow-Origin`, so it reads nothing; and since a key travels in a
 * header a browser sends only after a preflight, it changes nothing either. The default key is public: this is what
 * keeps a page on a site the developer visits away from their pets. Dev servers (Vite, webpack) run on this machine.
 */
export class PageOrigins {
  readonly #allowed: Set<string>
  readonly #any: boolean
  readonly #hosts: HostCheck
  /** The last origin found allowed: a page sends the same one on every request, so the check is one comparison. */
  #last: string | undefined

  constructor(allowed: readonly string[] = [], hosts = new HostCheck('127.0.0.1')) {
    this.#allowed = new Set(allowed.map(normalOrigin))
    this.#any = allowed.includes('*')
    this.#hosts = hosts
  }

  /** True when a page on `origin` (the request's `Origin`) may call the interface and read its answers. */
  allows(origin: string): boolean {
    if (origin === this.#last) return true
    const normal = normalOrigin(origin)
    const authority = /^https?:\/\/((?:[^/\s@?#\\:[\]]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?)$/.exec(normal)?.[1]
    if (this.#any || this.#allowed.has(normal)) return Boolean((this.#last = origin))
    const how = authority === undefined ? undefined : this.#hosts.pagesOf(authority)
    // One of the machine's addresses now may not be one later: asked again each time (a moment, from the addresses read).
    if (how === 'name') this.#last = origin
    return how !== undefined
  }
}

/** An origin as compared: lower case, no trailing slash. */
function normalOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '')
}

/** The 403 of a preflight from a page whose origin may not call the interface. */
export function pageRefused(origin: string): AppResponse {
  const shown = JSON.stringify(origin.slice(0, 100))
  const error = new ApiError(
    403,
    'origin_not_allowed',
    `the stub does not answer pages from ${shown}: pages on this machine (localhost, 127.0.0.1) may call it; start it with --allow-origin ORIGIN to allow another`,
  )
  return errorAnswer(error, ['Vary', 'Origin'])
}

/** An answer of the interface to a page it does not answer: no CORS header a browser would let the page read it by. */
export function withoutCors(response: AppResponse): AppResponse {
  const answer = corsRemoved(response)
  answer.headers.push('Vary', 'Origin')
  return answer
}

/**
 * The answer of the interface to a page on `origin`: `Access-Control-Allow-Origin: *` becomes that origin, with
 * `Access-Control-Allow-Credentials: true` and `Vary: Origin`, so that a page sending cookies can read it.
 */
export function withCredentials(response: AppResponse, origin: string): AppResponse {
  const headers = response.headers
  const at = headers.indexOf('Access-Control-Allow-Origin')
  if (at === -1 || at % 2 !== 0 || headers[at + 1] !== '*') return response
  const reflected = headers.slice()
  reflected[at + 1] = origin
  reflected.push('Access-Control-Allow-Credentials', 'true', 'Vary', 'Origin')
  return { ...response, headers: reflected }
}
