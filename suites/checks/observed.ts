/** How observed checks describe what a target chose, in a few words. */
import type { Exchange } from '../../model/index.js'
import { bodyOf, idOf, isObject, listedPets, show } from './util.js'

/** `400 Error (code "invalid_limit")`, `200, 3 pets`, `timeout`: what an answer was, briefly. */
export function describeAnswer(exchange: Exchange): string {
  if (!exchange.response) return `no answer (${exchange.error})`
  const { status } = exchange.response
  const body = bodyOf(exchange)
  const pets = listedPets(exchange)
  if (pets) return `${status}, ${pets.length} pet${pets.length === 1 ? '' : 's'}`
  if (isObject(body) && typeof body.code === 'string') return `${status} Error (code ${show(body.code)})`
  if (isObject(body) && idOf(body) !== undefined) return `${status} Pet (id ${idOf(body)})`
  if (isObject(body)) return `${status} ${show(body).slice(0, 120)}`
  return `${status}`
}
