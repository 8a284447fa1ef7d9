/**
 * Model-based: random sequences of createPet, listPets (each filter, each limit), getPet (known and unknown
 * ids) and unauthenticated calls, checked against a plain in-memory model of what the sequence created.
 * Pets the model did not create (already there, or made by others) are tolerated. A failing sequence is
 * shrunk to the shortest one that still fails, and that sequence is the finding's counterexample.
 */
import fc from 'fast-check'
import type { JsonValue, OperationId } from '../../spec/index.js'
import { asJson, listLimit, newPet, petStatus, type NewPetValue } from '../arbitraries.js'
import { idOf, show } from '../checks/util.js'
import { MAX_COMMANDS, statefulRuns } from '../config.js'
import type { Credential } from '../client.js'
import { conformanceTest, type Recorder, type Session } from '../harness.js'
import { unknownId } from '../probes.js'

/** What the sequence created: id -> the pet as createPet returned it. */
class Model {
  readonly pets = new Map<string, JsonValue>()
  constructor(readonly session: Session) {}
  get canCreate(): boolean {
    return this.session.createdByArea.stateful < this.session.config.allowances.stateful
  }
}

interface Real {
  r: Recorder
}

/** Thrown to stop a sequence at the first command whose answer broke a rule. */
class Violation extends Error {}

function stopOnFailure(r: Recorder): void {
  if (r.failures(false).length) throw new Violation('a check failed')
}

class CreatePet implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pet: NewPetValue) {}
  check = (m: Readonly<Model>) => m.canCreate
  async run(m: Model, { r }: Real): Promise<void> {
    const { pet } = await r.createValid(this.pet)
    const id = idOf(pet)
    if (id !== undefined) m.pets.set(id, pet!)
    stopOnFailure(r)
  }
  toString = () => `createPet ${show(asJson(this.pet))}`
}

class ListPets implements fc.AsyncCommand<Model, Real> {
  constructor(readonly limit: number | undefined, readonly status: string | undefined) {}
  check = () => true
  async run(m: Model, { r }: Real): Promise<void> {
    const query: [string, string][] = []
    if (this.limit !== undefined) query.push(['limit', String(this.limit)])
    if (this.status !== undefined) query.push(['status', this.status])
    const exchange = await r.listPets(query)
    const created = [...m.pets.values()]
    // The pets the sequence created that match exist, so the page holds at least min(limit, their number).
    const atLeast = created.filter((pet) => this.status === undefined || (pet as { status?: unknown }).status === this.status).length
    const context = { exchange, limit: this.limit, status: this.status, created, atLeast }
    if (this.limit === undefined) r.check('listPets.limit.default', context)
    else {
      r.check('listPets.limit.max', context)
      r.check('listPets.limit.fills', context)
    }
    if (this.status !== undefined) r.check('listPets.status.filter', context)
    r.check('listPets.finds-created', context)
    stopOnFailure(r)
  }
  toString = () => `listPets ${this.limit === undefined ? '' : `limit=${this.limit} `}${this.status === undefined ? '' : `status=${this.status}`}`.trim()
}

class GetKnownPet implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.pets.size > 0
  async run(m: Model, { r }: Real): Promise<void> {
    const ids = [...m.pets.keys()]
    const id = ids[this.index % ids.length]!
    r.check('getPet.returns-created', { exchange: await r.getPet(id), expected: m.pets.get(id) })
    stopOnFailure(r)
  }
  toString = () => `getPet <created #${this.index}>`
}

class GetUnknownPet implements fc.AsyncCommand<Model, Real> {
  constructor(readonly offset: bigint) {}
  check = () => true
  async run(_m: Model, { r }: Real): Promise<void> {
    r.check('getPet.unknown-404', { exchange: await r.getPet(unknownId(r, [], this.offset)) })
    stopOnFailure(r)
  }
  toString = () => `getPet <unknown id, +${this.offset}>`
}

class Unauthenticated implements fc.AsyncCommand<Model, Real> {
  constructor(readonly operationId: Exclude<OperationId, 'createPet'>, readonly credential: Credential) {}
  check = () => true
  async run(m: Model, { r }: Real): Promise<void> {
    const options = { credential: this.credential }
    const exchange = this.operationId === 'listPets' ? await r.listPets([], options) : await r.getPet([...m.pets.keys()][0] ?? '1', options)
    r.check(`${this.operationId}.auth.required`, { exchange })
    stopOnFailure(r)
  }
  toString = () => `${this.operationId} with credential ${this.credential}`
}

conformanceTest(
  'random sequences of calls agree with a model of what they created',
  {
    area: 'stateful',
    operations: ['listPets', 'createPet', 'getPet'],
    checks: [
      'createPet.echo',
      'createPet.ids-unique',
      'listPets.limit.max',
      'listPets.limit.fills',
      'listPets.limit.default',
      'listPets.status.filter',
      'listPets.finds-created',
      'getPet.returns-created',
      'getPet.unknown-404',
    ],
  },
  async (r) => {
    const spec = r.spec
    const commands = fc.commands(
      [
        newPet(spec, `${r.s.prefix}model-`).map((pet) => new CreatePet(pet)),
        fc
          .record({ limit: fc.option(listLimit(spec), { nil: undefined }), status: fc.option(petStatus(spec), { nil: undefined }) })
          .map(({ limit, status }) => new ListPets(limit, status)),
        fc.nat().map((i) => new GetKnownPet(i)),
        fc.bigInt({ min: 0n, max: 1_000_000n }).map((offset) => new GetUnknownPet(offset)),
        fc
          .tuple(fc.constantFrom('listPets' as const, 'getPet' as const), fc.constantFrom<Credential>('none', 'empty', 'wrong', 'basic'))
          .map(([op, credential]) => new Unauthenticated(op, credential)),
      ],
      { maxCommands: MAX_COMMANDS },
    )
    await r.property({
      arbitrary: commands,
      numRuns: statefulRuns(r.s.config.runs),
      maxShrinkRuns: 30,
      show: (sequence) => String(sequence),
      run: async (sequence, child) => {
        const model = new Model(child.s)
        try {
          await fc.asyncModelRun(() => ({ model, real: { r: child } }), sequence)
        } catch (error) {
          if (!(error instanceof Violation)) throw error
        }
      },
    })
  },
)
