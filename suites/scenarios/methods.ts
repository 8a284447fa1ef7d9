/**
 * Methods no operation documents, on each documented path: never a 5xx, never data without a key; what the target
 * answers is observed, and a 405 should say what is allowed (RFC 9110 §15.5.6, advice). Methods that could change
 * state go without a key everywhere, and with the key only on a pet id that does not exist: staging has no delete.
 */
import type { Credential } from '../../model/index.js'
import { scenario } from '../engine/scenario.js'

/** Methods that change nothing by definition (RFC 9110 §9.2.1), sent with the key too. */
const SAFE = ['HEAD', 'OPTIONS', 'TRACE']
/** Methods that may change state, sent with the key only where nothing exists to change. */
const UNSAFE = ['PUT', 'PATCH', 'DELETE', 'POST']

export const otherMethods = scenario({
  name: 'undocumented methods on each documented path (PUT, PATCH, DELETE, TRACE, HEAD, OPTIONS): never a 5xx, 405 with Allow',
  area: 'probe',
  operations: ['listPets', 'createPet', 'getPet'],
  states: ['otherMethod'],
  credentials: ['valid', 'invalid'],
  async run(s) {
    const unknown = s.run.unknownId(31_337n)
    const paths = new Map<string, { methods: Set<string>; sample: string; unknown: string }>()
    for (const op of Object.values(s.spec.operations)) {
      const entry = paths.get(op.path) ?? {
        methods: new Set<string>(),
        sample: op.path.replace(/\{[^}]+\}/, '1'),
        unknown: op.path.replace(/\{[^}]+\}/, unknown),
      }
      // Every method the path documents, an operation the kit does not judge included (a revision's DELETE).
      for (const method of s.spec.methodsOf(op.path)) entry.methods.add(method)
      paths.set(op.path, entry)
    }
    const sends: Promise<unknown>[] = []
    for (const [template, { methods, sample, unknown: absent }] of paths) {
      // A HEAD answer has no body to decode, whatever its Content-Encoding says: ask for none.
      const headers = (method: string) => (method === 'HEAD' ? { headers: { 'accept-encoding': 'identity' } } : {})
      const send = (method: string, path: string, credential: Credential) =>
        s.send({ method, path, ...headers(method) }, { credential, facts: { otherMethod: template } })
      for (const method of [...SAFE, ...UNSAFE].filter((m) => !methods.has(m))) {
        sends.push(send(method, sample, 'none'))
        // With the key: safe methods anywhere; the others only where a template names an id no pet has.
        if (SAFE.includes(method)) sends.push(send(method, sample, 'key'))
        else if (absent !== template) sends.push(send(method, absent, 'key'))
      }
    }
    const exchanges = await Promise.all(sends)
    if (!exchanges.some((e) => (e as { response?: { status: number } }).response?.status === 405)) {
      s.premiseMissing(['methods.allow'], 'the target answered no undocumented method with 405')
    }
  },
})

export const METHODS = [otherMethods]
