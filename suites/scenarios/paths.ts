/**
 * Other spellings of the documented paths: a trailing slash, a doubled slash, another letter case, percent-encoded
 * characters. Whatever the target answers is observed; without a valid key it never shows a pet, and never a 5xx.
 */
import type { Credential } from '../../model/index.js'
import { idOf, listedPets } from '../checks/util.js'
import { scenario } from '../engine/scenario.js'

/** Percent-encodes every character of a text (`7` -> `%37`): the same path to RFC 3986, another spelling on the wire. */
const encodeAll = (text: string) =>
  [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('')

export const pathVariants = scenario({
  name: 'other spellings of each documented path (trailing or doubled slash, letter case, percent-encoding): no data without a key, never a 5xx',
  area: 'probe',
  operations: ['listPets', 'createPet', 'getPet'],
  states: ['pathVariant'],
  credentials: ['valid', 'invalid'],
  async run(s) {
    // A pet that exists, so a variant that slips past the key would show it.
    const id = idOf((listedPets(await s.listPets([['limit', '1']])) ?? [])[0]) ?? '1'
    const list = s.spec.operation('listPets').path // `/pets`
    const item = s.spec.operation('getPet').path.replace(/\{[^}]+\}/, id)
    const [first, ...rest] = list.slice(1)
    const itemTemplate = s.spec.operation('getPet').path
    const variants: [string, string, string][] = [
      ['GET', `${list}/`, `GET ${list} with a trailing slash`],
      ['GET', `/${list}`, `GET ${list} with a doubled leading slash`],
      ['GET', list.toUpperCase(), `GET ${list} in upper case`],
      ['GET', `/${first!.toUpperCase()}${rest.join('')}`, `GET ${list} with a capital letter`],
      ['GET', `/${encodeAll(first!)}${rest.join('')}`, `GET ${list} with a percent-encoded letter`],
      ['GET', `${list}%2F${id}`, `GET ${itemTemplate} with its slash percent-encoded`],
      ['GET', `${item}/`, `GET ${itemTemplate} with a trailing slash`],
      ['GET', item.replace(`/${id}`, `//${id}`), `GET ${itemTemplate} with a doubled slash`],
      ['GET', item.toUpperCase(), `GET ${itemTemplate} in upper case`],
      [
        'GET',
        item.replace(new RegExp(`/${id}$`), `/${encodeAll(id)}`),
        `GET ${itemTemplate} with its digits percent-encoded`,
      ],
      ['POST', `${list}/`, `POST ${list} with a trailing slash`],
      ['POST', list.toUpperCase(), `POST ${list} in upper case`],
    ]
    const body = JSON.stringify({ name: `${s.prefix}variant`, categoryId: 1 })
    await Promise.all(
      variants.flatMap(([method, path, variant]) =>
        // POST with the key could add a pet the run does not count: creates go without a key only.
        (method === 'POST' ? (['none'] as Credential[]) : (['none', 'key'] as Credential[])).map((credential) =>
          s.send(
            { method, path, ...(method === 'POST' ? { body } : {}) },
            { credential, facts: { pathVariant: variant } },
          ),
        ),
      ),
    )
  },
})

export const PATHS = [pathVariants]
