/**
 * How alike two conformance reports' observations are: the service's and its twin's. Each subject an observed check
 * named on the service counts once; it is alike when the twin's answers to it read the same, ids and sizes aside.
 */
import type { ReportData } from './likeness.js'

/** The comparison of a service's observations with its twin's. */
export interface Fidelity {
  /** Subjects observed on both (checks about sizes left out). */
  total: number
  alike: number
  /** alike / total. */
  ratio: number
  /** Subjects observed on the service that the twin's report does not show (not sent there, or cut), not compared. */
  unseen: number
  /** The subjects observed differently: check, subject, and what each showed. */
  differences: { checkId: string; subject: string; service: string[]; twin: string[] }[]
}

/** Observed checks about sizes, which a twin does not copy (field size limits). */
const SIZES = new Set(['createPet.name.long'])

/** The words of an answer without ids, counts and the notes counts give rise to. */
export function normalize(checkId: string, behaviour: string): string {
  if (checkId === 'createPet.id-scheme') return behaviour.replace(/, step 1/, '').replace(/ \(e\.g\. .*\)$/, '')
  if (checkId === 'listPets.ordering') return behaviour.replace(/ \(first ids .*\)$/, '')
  return behaviour
    .replace(/\(id -?[0-9]+\)/g, '(id)')
    .replace(/, [0-9]+ pets?( \((clamped to the maximum|default page)\?\))?/g, ', a list')
}

/** Compares what the suite observed on a service with what it observed on its twin. */
export function compareObservations(service: ReportData, twin: ReportData): Fidelity {
  const group = (report: ReportData) => {
    const bySubject = new Map<string, Set<string>>()
    for (const o of report.observations) {
      if (SIZES.has(o.id) || o.behaviour.startsWith('[truncated:')) continue
      const key = `${o.id}\u0000${o.subject}`
      const set = bySubject.get(key) ?? new Set<string>()
      set.add(normalize(o.id, o.behaviour))
      bySubject.set(key, set)
    }
    return bySubject
  }
  const theirs = group(service)
  const ours = group(twin)
  // A subject the suite did not send to the twin (its random phase went another way, or the twin's report cut the
  // check's list short) was not observed there: it is counted apart, not compared.
  const differences: Fidelity['differences'] = []
  let unseen = 0
  for (const [key, seen] of theirs) {
    const mine = ours.get(key)
    if (mine === undefined) {
      unseen++
      continue
    }
    const same = seen.size === mine.size && [...seen].every((b) => mine.has(b))
    if (same) continue
    const [checkId, subject] = key.split('\u0000') as [string, string]
    differences.push({ checkId, subject, service: [...seen].sort(), twin: [...mine].sort() })
  }
  const total = theirs.size - unseen
  const alike = total - differences.length
  return { total, alike, ratio: total === 0 ? 1 : alike / total, unseen, differences }
}
