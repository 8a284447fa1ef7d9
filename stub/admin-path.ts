/** The reserved path prefix of the admin API, outside the interface's `/v1`. */
export const ADMIN_PREFIX = '/__stub'

/** True for a request target under the admin prefix. */
export function isAdmin(url: string): boolean {
  return (
    url.startsWith(ADMIN_PREFIX) && (url.length === ADMIN_PREFIX.length || '/?'.includes(url[ADMIN_PREFIX.length]!))
  )
}
