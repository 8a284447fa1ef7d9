/** Every documented status the suite can provoke from a conformant target is provoked and seen. */
import type { OperationId } from '../../spec/index.js'
import { idOf } from '../checks/util.js'
import { conformanceTest } from '../harness.js'
import type { StatusCoverage } from '../model.js'
import { unknownId } from '../probes.js'

/** Documented statuses a conformant target may never give: the interface leaves out-of-range listPets open. */

conformanceTest(
  'each documented status of each operation is provoked',
  { area: 'coverage', operations: ['listPets', 'createPet', 'getPet'], checks: ['coverage.documented-statuses'] },
  async (r) => {
    const seen = new Set<string>()
    const note = (exchange: { operationId: OperationId; response?: { status: number } }) => {
      if (exchange.response) seen.add(`${exchange.operationId} ${exchange.response.status}`)
    }
    const { minimum } = r.spec.parameter('listPets', 'limit')
    note(await r.listPets([['limit', '1']]))
    note(await r.listPets([], { credential: 'none' }))
    note(await r.listPets([['limit', String(Number(minimum) - 1)]], { context: { undocumentedInput: true } }))
    const { exchange, pet } = await r.createValid({ name: `${r.s.prefix}coverage`, categoryId: 5n })
    note(exchange)
    note(await r.createPet(undefined))
    note(await r.createPet({ name: `${r.s.prefix}coverage-unauth`, categoryId: 5n }, { credential: 'none' }))
    const id = idOf(pet) ?? [...r.s.created.keys()].at(-1) ?? '1'
    note(await r.getPet(id))
    note(await r.getPet(id, { credential: 'none' }))
    note(await r.getPet(unknownId(r)))
    const coverage: StatusCoverage[] = (Object.keys(r.spec.operations) as OperationId[])
      .filter((op) => !r.s.config.operations.length || r.s.config.operations.includes(op))
      .flatMap((operationId) =>
        r.spec.statuses(operationId).map((status) => ({
          operationId,
          status,
          seen: seen.has(`${operationId} ${status}`),
          provokable: !r.spec.operation(operationId).silentStatuses.includes(status),
        })),
      )
    r.check('coverage.documented-statuses', { coverage })
  },
)
