import { describe, expect, it } from 'vitest'
import { Spec, spec } from '../../spec/index.js'
import { fitNewPet, markLabel, renderInvalid, runPrefix } from './naming.js'

const s = spec()

describe('hand-written bodies under a revision that bounds the label or requires more', () => {
  const doc = structuredClone(s.doc)
  doc.components.schemas.NewPet.properties.name = { type: 'string', minLength: 2, maxLength: 20 }
  doc.components.schemas.NewPet.required = ['name', 'categoryId', 'status']
  const revised = new Spec(doc)
  const valid = revised.schema('NewPet')

  it('fits a label past maxLength: the prefix kept, distinct labels still distinct, and required fields filled', () => {
    const a = fitNewPet(revised, { name: 'pcs-abc-media-t0-as application/json', categoryId: 1n }, 'pcs-abc-')
    const b = fitNewPet(revised, { name: 'pcs-abc-media-t1-as application/json', categoryId: 1n }, 'pcs-abc-')
    for (const body of [a, b]) {
      expect(valid(body)).toEqual([])
      expect(String((body as { name: string }).name)).toMatch(/^pcs-abc-/)
    }
    expect((a as { name: string }).name).not.toBe((b as { name: string }).name)
    expect((a as { status?: string }).status).toBe(revised.enumOf('PetStatus')[0])
    // Values past a revision's bounds or outside its enumeration are brought within them.
    const narrow = structuredClone(doc)
    Object.assign(narrow.components.schemas.NewPet.properties.categoryId, { minimum: 1, maximum: 10 })
    narrow.components.schemas.PetStatus.enum = ['available', 'pending']
    const fittedIn = fitNewPet(new Spec(narrow), { name: 'pcs-abc-y', categoryId: 80n, status: 'sold' }, 'pcs-abc-')
    expect(fittedIn).toEqual({ name: 'pcs-abc-y', categoryId: 10n, status: 'available' })
    // A body that already fits comes back as it was.
    const fits = { name: 'pcs-abc-x', categoryId: 1n, status: 'sold' }
    expect(fitNewPet(revised, fits, 'pcs-abc-')).toBe(fits)
  })

  it('counts a label in code points: one that fits is kept as it is, one past maxLength is cut between them', () => {
    // 8 + 12 = 20 code points (32 UTF-16 units): it fits maxLength 20.
    const fits = { name: `pcs-abc-${'🐈'.repeat(12)}`, categoryId: 1n, status: 'sold' }
    expect(fitNewPet(revised, fits, 'pcs-abc-')).toBe(fits)
    // 8 + 13: cut to 20, the first 5 cats kept whole and a 7-letter mark after them.
    const name = (fitNewPet(revised, { ...fits, name: `pcs-abc-${'🐈'.repeat(13)}` }, 'pcs-abc-') as { name: string })
      .name
    expect(name).toMatch(/^pcs-abc-(🐈){5}[a-z]{7}$/u)
    expect(valid({ ...fits, name })).toEqual([])
  })

  it('marks an invalid body only when the mark keeps it invalid', () => {
    const tooShort = { name: 'x', categoryId: 1n, status: 'sold' }
    expect(markLabel(revised, tooShort, 'pcs-bad-0-')).toBe(tooShort) // marked, it would become valid
    const wrongType = { name: 'Rex', categoryId: 'one', status: 'sold' }
    expect(markLabel(revised, wrongType, 'pcs-bad-1-')).toEqual({ ...wrongType, name: 'pcs-bad-1-Rex' })
    expect(renderInvalid({ why: 'name under minLength 2', body: tooShort }, 'pcs-bad-0-', revised)).toBe(
      '{"name":"x","categoryId":1,"status":"sold"}',
    )
  })
})

describe('the run prefix under a revision whose name refuses pcs-<runId>-', () => {
  const revised = (name: object) => {
    const doc = structuredClone(s.doc)
    doc.components.schemas.NewPet.properties.name = { type: 'string', ...name }
    return new Spec(doc)
  }

  it('stays pcs-<runId>- where the name takes it, and turns to letters or a shorter form where it does not', () => {
    expect(runPrefix(s, '0pb7hum')).toBe('pcs-0pb7hum-')
    expect(runPrefix(revised({ pattern: '^[A-Za-z ]+$' }), '0pb7hum')).toBe('pcsapbhhum')
    expect(runPrefix(revised({ pattern: '^[A-Z]+$' }), '0pb7hum')).toBe('PCSAPBHHUM')
    expect(runPrefix(revised({ maxLength: 8 }), '0pb7hum')).toBe('0pb7')
  })

  it('keeps room for distinct labels under a maxLength below 8, down to no mark at all', () => {
    const rests = ['sentinel-bad-before', 'fill-1', 'fill-2', 'get', 'coverage', 'in-order-0', 'in-order-1']
    for (const [max, expected] of [
      [7, '0pb7'],
      [6, '0pb'],
      [5, '0p'],
      [4, '0'],
      [3, ''],
      [2, ''],
    ] as const) {
      const spec = revised({ maxLength: max })
      const prefix = runPrefix(spec, '0pb7hum')
      expect([max, prefix]).toEqual([max, expected])
      const labels = rests.map(
        (rest) => (fitNewPet(spec, { name: prefix + rest, categoryId: 1n }, prefix) as { name: string }).name,
      )
      for (const label of labels) expect(label.startsWith(prefix) && [...label].length <= max).toBe(true)
      if (max >= 3) expect([max, new Set(labels).size]).toEqual([max, labels.length])
    }
  })

  it('fits every label of such a run to the pattern, distinct labels still distinct', () => {
    const spec = revised({ pattern: '^[A-Z][a-z]+$', maxLength: 24 })
    const prefix = runPrefix(spec, '0pb7hum')
    const fit = (name: string) => (fitNewPet(spec, { name, categoryId: 1n }, prefix) as { name: string }).name
    const labels = ['sentinel-bad-before', 'fill-1', 'fill-2', 'media-t0-as application/vnd.petstore+json'].map(
      (rest) => fit(`${prefix}${rest}`),
    )
    for (const label of labels) expect(label).toMatch(/^[A-Z][a-z]+$/)
    for (const label of labels) expect(label.startsWith(prefix)).toBe(true)
    expect(new Set(labels).size).toBe(labels.length)
  })
})
