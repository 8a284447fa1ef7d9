/**
 * Reads a JUnit file with a real XML parser (fast-xml-parser): a test learns both whether it is well-formed
 * XML and what it says, without a browser.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'

/** One `<testcase>` of a JUnit file. */
export interface JunitCase {
  classname: string
  name: string
  properties: Record<string, string>
  failure?: { message: string; type: string; text: string }
  error?: { message: string; text: string }
  skipped?: { message: string }
  systemOut?: string
}

/** What a JUnit file says, or the parser's complaint when it is not well-formed. */
export interface Junit {
  parseError?: string
  root: string
  totals: { tests: number; failures: number; errors: number; skipped: number }
  suites: {
    name: string
    tests: number
    failures: number
    errors: number
    skipped: number
    properties: Record<string, string>
    systemErr?: string
  }[]
  cases: JunitCase[]
}

// Elements that may repeat are always arrays, so one testcase reads like many.
const REPEATED = new Set(['testsuite', 'testcase', 'property'])

type Node = Record<string, any>
const text = (node: unknown): string =>
  typeof node === 'string' ? node : typeof node === 'object' && node ? String((node as Node)['#text'] ?? '') : ''
const properties = (node: Node | undefined): Record<string, string> =>
  Object.fromEntries(
    ((node?.properties?.property ?? []) as Node[]).map((p) => [String(p['@_name']), String(p['@_value'])]),
  )

/** Parses `xml`; `parseError` says what is wrong when it is not well-formed XML. */
export function readJunit(xml: string): Junit {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) {
    return {
      parseError: `${valid.err.code}: ${valid.err.msg} (line ${valid.err.line})`,
      root: '',
      totals: { tests: 0, failures: 0, errors: 0, skipped: 0 },
      suites: [],
      cases: [],
    }
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    processEntities: true,
    isArray: (name) => REPEATED.has(name),
  })
  const doc = parser.parse(xml) as Node
  const root = Object.keys(doc).find((k) => !k.startsWith('?')) ?? ''
  const top = doc[root] as Node
  const number = (node: Node, name: string) => Number(node[`@_${name}`])
  const suites = ((top.testsuite ?? []) as Node[]).map((s) => ({
    name: String(s['@_name']),
    tests: number(s, 'tests'),
    failures: number(s, 'failures'),
    errors: number(s, 'errors'),
    skipped: number(s, 'skipped'),
    properties: properties(s),
    ...(s['system-err'] !== undefined ? { systemErr: text(s['system-err']) } : {}),
  }))
  const cases = ((top.testsuite ?? []) as Node[])
    .flatMap((s) => (s.testcase ?? []) as Node[])
    .map((c): JunitCase => ({
      classname: String(c['@_classname']),
      name: String(c['@_name']),
      properties: properties(c),
      ...(c.failure !== undefined
        ? {
            failure: {
              message: String(c.failure['@_message']),
              type: String(c.failure['@_type']),
              text: text(c.failure),
            },
          }
        : {}),
      ...(c.error !== undefined ? { error: { message: String(c.error['@_message']), text: text(c.error) } } : {}),
      ...(c.skipped !== undefined ? { skipped: { message: String(c.skipped['@_message'] ?? '') } } : {}),
      ...(c['system-out'] !== undefined ? { systemOut: text(c['system-out']) } : {}),
    }))
  return {
    root,
    totals: {
      tests: number(top, 'tests'),
      failures: number(top, 'failures'),
      errors: number(top, 'errors'),
      skipped: number(top, 'skipped'),
    },
    suites,
    cases,
  }
}
