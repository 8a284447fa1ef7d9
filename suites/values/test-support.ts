/** What the value generators' tests share. */
import { Spec } from '../../spec/index.js'

/**
 * A revision of `spec` whose NewPet adds properties with a format, a pattern, a nullable type, and an array of
 * objects, one of them required: the keywords beyond a value's JSON type that the generators must honour.
 */
export function revisionWithFormats(spec: Spec): Spec {
  const doc = structuredClone(spec.doc)
  Object.assign(doc.components.schemas.NewPet.properties, {
    birthDate: { type: 'string', format: 'date' },
    chip: { type: 'string', format: 'uuid' },
    code: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{2}$' },
    rank: { type: ['integer', 'null'], minimum: 1, maximum: 9 },
    vets: {
      type: 'array',
      maxItems: 3,
      items: { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
    },
  })
  doc.components.schemas.NewPet.required = ['name', 'categoryId', 'birthDate']
  return new Spec(doc)
}

/** A revision of `spec` whose NewPet has a nullable status (`anyOf`), a `oneOf` note and a long minimum length. */
export function revisionWithAlternatives(spec: Spec): Spec {
  const doc = structuredClone(spec.doc)
  Object.assign(doc.components.schemas.NewPet.properties, {
    status: { anyOf: [{ $ref: '#/components/schemas/PetStatus' }, { type: 'null' }] },
    note: {
      oneOf: [
        { type: 'string', maxLength: 20 },
        { type: 'integer', minimum: 1000 },
      ],
    },
    description: { type: 'string', minLength: 300, maxLength: 400 },
  })
  return new Spec(doc)
}
