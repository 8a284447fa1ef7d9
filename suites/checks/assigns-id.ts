import { operationPointer } from '../../spec/index.js'
import { exchangeCheck } from './check.js'
import { bodyOf, idOf, isObject, requestLine, sameJson } from './util.js'

/**
 * The service assigns ids: an `id` in a createPet body (a field NewPet does not name) is not used as the pet's
 * id. Judged on the create and on the getPet of that id, whatever they answer: it fails only when a Pet comes
 * back that is the one the client created (its name) under the id the client wrote. Another pet under that id
 * (a mock answering every id with its example) is not this check's business; a refusal or a 404 passes.
 */
export const assignsId = exchangeCheck({
  id: 'createPet.assigns-id',
  title: 'The service assigns the id: an id sent in the body is not used',
  severity: 'fail',
  basis: (spec) => [
    { spec: '#/components/schemas/Pet/allOf/1/properties/id/description' },
    { spec: operationPointer(spec, 'createPet', 'description') },
  ],
  on: {
    // Any answer to the create or to the getPet of that id: a refusal or a 404 shows the id unused, too.
    operation: ['createPet', 'getPet'],
    needs: ['clientId', 'sent'],
  },
  run: ({ exchange, response, operationId, facts: { clientId, sent } }) => {
    const pet = bodyOf(exchange)
    if (idOf(pet) !== clientId || !isObject(pet) || !isObject(sent) || !sameJson(pet.name, sent.name)) return []
    const chose = 'the client chose the id; documented: the service assigns it'
    // The 201 body is the stored pet: the id sent back means the body was echoed or stored as sent.
    if (operationId === 'createPet')
      return [
        `${requestLine(exchange)} answered ${response.status} with id ${clientId}, the id the body carried: ${chose}`,
      ]
    return [
      `${requestLine(exchange)} answered ${response.status} with the pet created by a createPet whose body carried that id: ${chose}`,
    ]
  },
})
