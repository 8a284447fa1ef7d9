/**
 * Model-based: random sequences of createPet, listPets (each filter, each limit), getPet (known and unknown
 * ids) and unauthenticated calls, against a plain model of what the sequence created. The engine judges each
 * answer against what the run knows; a sequence stops at its first failing answer and is shrunk to the
 * shortest one that still fails, which becomes the finding's counterexample.
 */
import fc from 'fast-check'
import type { Credential } from '../../model/index.js'
import type { JsonValue } from '../../spec/index.js'
import { asJson, listLimit, newPet, petStatus, type NewPetValue } from '../values/index.js'
import { idOf, show } from '../checks/util.js'
import { MAX_COMMANDS, statefulRuns } from '../engine/config.js'
import { scenario, type Scenario } from '../engine/scenario.js'

/** What the sequence created: id -> the pet as createPet returned it. */
class Model {
  readonly pets = new Map<string, JsonValue>()
}

/** Thrown to stop a sequence at the first command whose answer broke a rule. */
class Violation extends Error {}

function stopOnFailure(s: Scenario): void {
  if (s.recorder.judge.failing(false).length) throw new Violation('a check failed')
}

type Command = fc.AsyncCommand<Model, Scenario>

class CreatePet implements Command {
  constructor(readonly pet: NewPetValue) {}
  check = (_m: Readonly<Model>) => true
  async run(m: Model, s: Scenario): Promise<void> {
    if (!s.mayCreate()) return
    const { pet } = await s.createValid(asJson(this.pet))
    const id = idOf(pet)
    if (id !== undefined) m.pets.set(id, pet!)
    stopOnFailure(s)
  }
  toString = () => `createPet ${show(asJson(this.pet))}`
}

class ListPets implements Command {
  constructor(
    readonly limit: number | undefined,
    readonly status: string | undefined,
  ) {}
  check = () => true
  async run(_m: Model, s: Scenario): Promise<void> {
    const query: [string, string][] = []
    if (this.limit !== undefined) query.push(['limit', String(this.limit)])
    if (this.status !== undefined) query.push(['status', this.status])
    await s.listPets(query)
    stopOnFailure(s)
  }
  toString = () =>
    `listPets ${this.limit === undefined ? '' : `limit=${this.limit} `}${this.status === undefined ? '' : `status=${this.status}`}`.trim()
}

class GetKnownPet implements Command {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.pets.size > 0
  async run(m: Model, s: Scenario): Promise<void> {
    const ids = [...m.pets.keys()]
    await s.getPet(ids[this.index % ids.length]!)
    stopOnFailure(s)
  }
  toString = () => `getPet <created #${this.index}>`
}

class GetUnknownPet implements Command {
  constructor(readonly offset: bigint) {}
  check = () => true
  async run(_m: Model, s: Scenario): Promise<void> {
    await s.getUnknown(s.run.unknownId(this.offset))
    stopOnFailure(s)
  }
  toString = () => `getPet <unknown id, +${this.offset}>`
}

class Unauthenticated implements Command {
  constructor(
    readonly operation: 'listPets' | 'getPet',
    readonly credential: Credential,
  ) {}
  check = () => true
  async run(m: Model, s: Scenario): Promise<void> {
    const options = { credential: this.credential }
    if (this.operation === 'listPets') await s.listPets([], options)
    else await s.getPet([...m.pets.keys()][0] ?? '1', options)
    stopOnFailure(s)
  }
  toString = () => `${this.operation} with credential ${this.credential}`
}

export const modelBased = scenario({
  name: 'random sequences of calls agree with a model of what they created',
  area: 'stateful',
  operations: ['listPets', 'createPet', 'getPet'],
  states: ['sent', 'unknown'],
  credentials: ['valid', 'invalid'],
  async run(s) {
    const spec = s.spec
    const commands = fc.commands(
      [
        newPet(spec, `${s.prefix}model-`).map((pet): Command => new CreatePet(pet)),
        fc
          .record({
            limit: fc.option(listLimit(spec), { nil: undefined }),
            status: fc.option(petStatus(spec), { nil: undefined }),
          })
          .map(({ limit, status }): Command => new ListPets(limit, status)),
        fc.nat().map((i): Command => new GetKnownPet(i)),
        fc.bigInt({ min: 0n, max: 1_000_000n }).map((offset): Command => new GetUnknownPet(offset)),
        fc
          .tuple(
            fc.constantFrom('listPets' as const, 'getPet' as const),
            fc.constantFrom<Credential>('none', 'empty', 'wrong', 'basic'),
          )
          .map(([op, credential]): Command => new Unauthenticated(op, credential)),
      ],
      { maxCommands: MAX_COMMANDS },
    )
    await s.property({
      arbitrary: commands,
      numRuns: statefulRuns(s.run.config.runs),
      maxShrinkRuns: 30,
      show: (sequence) => String(sequence),
      run: async (sequence, child) => {
        try {
          await fc.asyncModelRun(() => ({ model: new Model(), real: child }), sequence)
        } catch (error) {
          if (!(error instanceof Violation)) throw error
        }
      },
    })
  },
})

export const STATEFUL = [modelBased]
