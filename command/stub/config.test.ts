import { linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { SPEC_PATH } from '../../spec/index.js'
import {
  DEFAULT_API_KEY,
  DEFAULT_MAX_BODY,
  DEFAULT_MAX_STORE,
  DEFAULT_SEED_PATH,
  isLoopbackAddress,
  JOURNAL_DEFAULTS,
  MAX_MAX_BODY,
  MAX_MAX_STORE,
} from '../../stub/index.js'
import { UsageError } from '../usage-error.js'
import { banner } from './banner.js'
import { DEFAULT_PORT, resolveConfig } from './config.js'

describe('resolveConfig', () => {
  it('fills in every default: no chaos, no admin key, no data file, the journal on', () => {
    expect(resolveConfig([], {})).toEqual({
      help: false,
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      apiKeys: [DEFAULT_API_KEY],
      keySource: 'the default',
      seed: DEFAULT_SEED_PATH,
      maxBody: DEFAULT_MAX_BODY,
      maxStore: DEFAULT_MAX_STORE,
      quiet: false,
      chaos: undefined,
      adminKey: undefined,
      data: undefined,
      journal: JOURNAL_DEFAULTS.entries,
      fault: undefined,
      allowHosts: [],
      adminOrigins: [],
      allowOrigins: [],
    })
    expect(Object.isFrozen(resolveConfig([], {}))).toBe(true)
  })

  it('reads every flag, in both spellings', () => {
    const argv = [
      '--port',
      '0',
      '--host=::1',
      '--api-key',
      'a',
      '--api-key=b',
      '--seed',
      'pets.json',
      '--max-body=1024',
      '--max-store',
      '5000000',
      '--quiet',
      '--fault',
      'hangs',
      '-h',
    ]
    argv.push(
      '--latency',
      '50-300',
      '--fail-rate=0.25',
      '--fail-status',
      '429',
      '--admin-key',
      'adm',
      '--data',
      'state.json',
      '--journal',
      '10',
      '--allow-host',
      'app.test',
      '--allow-host=proxy.test',
      '--admin-origin',
      'http://localhost:5173',
      '--allow-origin',
      'https://app.example',
      '--allow-origin=null',
    )
    expect(resolveConfig(argv, {})).toEqual({
      help: true,
      port: 0,
      host: '::1',
      apiKeys: ['a', 'b'],
      keySource: '--api-key',
      seed: 'pets.json',
      maxBody: 1024,
      maxStore: 5_000_000,
      quiet: true,
      chaos: { latencyMs: [50, 300], failRate: 0.25, failStatus: 429 },
      adminKey: 'adm',
      data: 'state.json',
      journal: 10,
      fault: 'hangs',
      allowHosts: ['app.test', 'proxy.test'],
      adminOrigins: ['http://localhost:5173'],
      allowOrigins: ['https://app.example', 'null'],
    })
    expect(resolveConfig(['--no-seed'], {}).seed).toBe(false)
    expect(resolveConfig(['--latency', '40'], {}).chaos).toEqual({ latencyMs: [40, 40] })
    expect(resolveConfig(['--fail-rate', '1'], {}).chaos).toEqual({
      latencyMs: undefined,
      failRate: 1,
      failStatus: 503,
    })
  })

  it('takes keys from PETSTORE_API_KEYS and the admin key from PETSTORE_ADMIN_KEY, flags over the environment', () => {
    expect(resolveConfig([], { PETSTORE_API_KEYS: ' one, two ,,' })).toMatchObject({
      apiKeys: ['one', 'two'],
      keySource: 'PETSTORE_API_KEYS',
    })
    expect(resolveConfig(['--api-key', 'flag'], { PETSTORE_API_KEYS: 'env' }).apiKeys).toEqual(['flag'])
    expect(resolveConfig([], { PETSTORE_API_KEYS: '' }).apiKeys).toEqual([DEFAULT_API_KEY])
    // Set with no key in it: the public default key must not stand in for the private ones meant.
    expect(() => resolveConfig([], { PETSTORE_API_KEYS: ', , ,' })).toThrow('PETSTORE_API_KEYS holds no key')
    expect(() => resolveConfig([], { PETSTORE_API_KEYS: ' ' })).toThrow('PETSTORE_API_KEYS holds no key')
    expect(resolveConfig([], { PETSTORE_API_KEYS: '' }).keySource).toBe('the default') // set empty: as unset
    expect(() => resolveConfig([], { PETSTORE_ADMIN_KEY: 'a b' })).toThrow('PETSTORE_ADMIN_KEY: an API key must be')
    expect(resolveConfig([], { PETSTORE_ADMIN_KEY: 'env-admin' }).adminKey).toBe('env-admin')
    expect(resolveConfig(['--admin-key', 'flag-admin'], { PETSTORE_ADMIN_KEY: 'env-admin' }).adminKey).toBe(
      'flag-admin',
    )
  })

  it('needs an admin key to listen beyond loopback, or to answer any host name', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) expect(isLoopbackAddress(host)).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.test']) expect(isLoopbackAddress(host)).toBe(false)
    expect(() => resolveConfig(['--host', '0.0.0.0'], {})).toThrow(
      '--host 0.0.0.0 is reachable from other machines: give --admin-key too',
    )
    expect(resolveConfig(['--host', '0.0.0.0', '--admin-key', 'k'], {}).host).toBe('0.0.0.0')
    expect(resolveConfig(['--host', '[::1]'], {}).host).toBe('::1') // as written in a URL
    // Any name answered: a DNS-rebinding page's same-origin GET over plain http looks like a script's.
    expect(() => resolveConfig(['--allow-host', '*'], {})).toThrow(
      "--allow-host '*' answers any host name, a DNS-rebinding page's too: give --admin-key too",
    )
    // The default key is public: a DNS-rebinding page, answered under `*`, would read and create pets with it.
    for (const keys of [[], ['--api-key', DEFAULT_API_KEY], ['--api-key', 'mine', '--api-key', DEFAULT_API_KEY]])
      expect(() => resolveConfig(['--allow-host', '*', '--admin-key', 'k', ...keys], {})).toThrow(
        "--allow-host '*' answers a DNS-rebinding page too, and every page knows the default API key: give --api-key KEY",
      )
    expect(resolveConfig(['--allow-host', '*', '--admin-key', 'k', '--api-key', 'mine'], {}).allowHosts).toEqual(['*'])
    expect(resolveConfig(['--allow-host', '*', '--admin-key', 'k'], { PETSTORE_API_KEYS: 'a,b' }).allowHosts).toEqual([
      '*',
    ])
    expect(resolveConfig(['--allow-host', 'stub'], {}).allowHosts).toEqual(['stub'])
  })

  it('refuses a client report or a data file that is a file the stub reads or keeps, under any of its names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-config-files-'))
    try {
      const spec = join(dir, 'spec.yaml')
      writeFileSync(spec, readFileSync(SPEC_PATH))
      writeFileSync(join(dir, 'pets.json'), '{"pets":[],"nextId":1}\n')
      symlinkSync('pets.json', join(dir, 'link.json'))
      linkSync(spec, join(dir, 'hard.yaml'))
      const data = join(dir, 'pets.json')
      for (const [argv, reason] of [
        [['--data', data, '--client-report', join(dir, '.', 'pets.json')], 'is the data file:'],
        [['--data', join(dir, 'link.json'), '--client-report', data], 'is the data file:'],
        [['--data', data, '--client-report', `${data}.log`], "is the data file's log:"],
        [['--data', join(dir, 'new.json'), '--client-report', join(dir, 'new.json.lock')], "is the data file's lock:"],
        [['--spec', spec, '--client-report', join(dir, 'hard.yaml')], 'is the --spec file:'],
        [['--seed', data, '--client-report', data], 'is the seed:'],
        [['--client-report', DEFAULT_SEED_PATH], 'is the seed:'],
        [['--spec', spec, '--data', join(dir, 'hard.yaml')], '--data '],
      ] as const) {
        expect(() => resolveConfig([...argv], {}), argv.join(' ')).toThrow(UsageError)
        expect(() => resolveConfig([...argv], {}), argv.join(' ')).toThrow(reason)
      }
      const config = resolveConfig(['--data', data, '--client-report', join(dir, 'report.json')], {})
      expect([config.data, config.clientReport]).toEqual([data, join(dir, 'report.json')])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], 'unexpected argument "extra"'],
    [['--port'], "Option '--port <value>' argument missing"],
    [['--port', '70000'], '--port must be from 0 to 65535'],
    [['--port', 'abc'], '--port must be an integer'],
    [['--max-body', '0'], '--max-body must be from 1'],
    [['--max-body', String(MAX_MAX_BODY + 1)], `--max-body must be from 1 to ${MAX_MAX_BODY}`],
    [['--seed', 'a.json', '--no-seed'], '--seed and --no-seed exclude each other'],
    [['--fault', 'nope'], '--fault must name one of the faults'],
    [['--api-key', 'has space'], 'an API key must be visible ASCII'],
    [['--quiet=yes'], "Option '--quiet' does not take an argument"],
    [['--port', '--host', 'x'], "Option '--port' argument is ambiguous."],
    [['--latency', 'slow'], '--latency must be MS or MIN-MAX'],
    [['--latency', '300-50'], '--latency must be MS or MIN-MAX'],
    [['--latency', '70000'], '--latency must be MS or MIN-MAX, from 0 to 60000 ms'],
    [['--fail-rate', '1.5'], '--fail-rate must be a number from 0 to 1'],
    [['--fail-rate', 'half'], '--fail-rate must be a number from 0 to 1'],
    [['--fail-rate', '0.1', '--fail-status', '500'], '--fail-status must be 429 or 503'],
    [['--fail-status', '429'], '--fail-status needs --fail-rate'],
    [['--admin-key', 'a b'], 'an API key must be visible ASCII'],
    [['--data', ''], '--data needs a file name'],
    [['--max-store', '0'], '--max-store must be'],
    [['--max-store', String(MAX_MAX_STORE + 1)], '--max-store must be'],
    [['--journal', '-1'], '--journal must be from 0'],
    [['--admin-origin', '*'], '--admin-origin must be an origin such as http://localhost:5173'],
    [['--admin-origin', 'http://a.test/path'], '--admin-origin must be an origin'],
    [['--allow-origin', 'app.example'], '--allow-origin must be an origin such as https://app.example'],
    [['--allow-origin', 'https://app.example/path'], '--allow-origin must be an origin'],
    [['--allow-host', 'a.test:8080'], '--allow-host must be a host name or address with no port, or * alone'],
    // Spellings of `*` that reading a Host would turn into `*`, without the admin key and own API key `*` needs.
    [['--allow-host', '*.'], '--allow-host must be a host name or address with no port, or * alone'],
    [['--allow-host', '[*]'], '--allow-host must be a host name or address with no port, or * alone'],
    [['--allow-host', '*.example.test'], '--allow-host must be a host name or address with no port, or * alone'],
    [['--allow-host', ' * '], '--allow-host must be a host name or address with no port, or * alone'],
    [['--admin-origin', 'null'], '--admin-origin must be an origin'],
    [['--admin-origin', 'http://user@a.test'], '--admin-origin must be an origin'],
    // An admin key anyone who may call /v1 holds, or that every page knows, opens the admin API to them.
    [['--admin-key', DEFAULT_API_KEY], '--admin-key must differ from every API key and from the default key'],
    [['--api-key', 'shared', '--admin-key', 'shared'], '--admin-key must differ from every API key'],
    [['--host', '0.0.0.0', '--admin-key', DEFAULT_API_KEY], '--admin-key must differ from every API key'],
  ])('refuses %j with a one-line reason', (argv, reason) => {
    expect(() => resolveConfig(argv, {})).toThrow(UsageError)
    expect(() => resolveConfig(argv, {})).toThrow(reason)
  })
})

describe('the startup message', () => {
  const url = 'http://127.0.0.1:4010/v1'

  it('shows the URL, where the pets came from, the key, the admin API and three curl lines', () => {
    const text = banner(resolveConfig([], {}), url, 36, 'fixtures/seed-pets.json')
    expect(text).toContain(`Pet Store stub listening on ${url} (36 pets from fixtures/seed-pets.json)`)
    expect(text).toContain(`API key: ${DEFAULT_API_KEY} (the default); send Authorization: Bearer ${DEFAULT_API_KEY}`)
    expect(text).toContain('Admin API: http://127.0.0.1:4010/__stub/ (no key needed on loopback)')
    expect(text.split('\n').filter((line) => line.startsWith('  curl '))).toHaveLength(3)
    expect(text).not.toContain("'") // double quotes only: the lines work in sh, cmd.exe and PowerShell
  })

  it('shows every key up to five, else how many and from where; chaos and the data file when on', () => {
    const few = resolveConfig(['--api-key', 'a', '--api-key', 'b', '--api-key', 'c'], {})
    expect(banner(few, url, 1, 'x')).toContain('API keys (3, from --api-key): a, b, c')
    expect(banner(few, url, 1, 'x')).toContain('(1 pet from x)')
    // Keys kept in the environment (a CI job's secrets) are not printed, in the curl lines either.
    const hidden = banner(resolveConfig([], { PETSTORE_API_KEYS: 'sekrit-one,sekrit-two' }), url, 1, 'x')
    expect(hidden).toContain('API keys: 2 from PETSTORE_API_KEYS (not shown); send Authorization: Bearer <your key>')
    expect(hidden).toContain('curl -H "Authorization: Bearer <your key>"')
    expect(hidden).not.toContain('sekrit')
    const many = resolveConfig(
      [
        '--api-key',
        'k1',
        '--api-key',
        'k2',
        '--api-key',
        'k3',
        '--api-key',
        'k4',
        '--api-key',
        'k5',
        '--api-key',
        'k6',
      ],
      {},
    )
    expect(banner(many, url, 0, 'x')).toContain('API keys: 6 from --api-key (not shown)')
    const chaotic = resolveConfig(
      ['--latency', '10-20', '--fail-rate', '0.05', '--data', 'state.json', '--admin-key', 'adm'],
      {},
    )
    const text = banner(chaotic, url, 0, 'x')
    expect(text).toContain('Chaos: latency 10-20 ms, 5% of requests answered 503')
    expect(text).toContain(
      'Data file: state.json (every change on disk before its answer; changes logged in state.json.log)',
    )
    expect(banner(chaotic, url, 0, 'x', 'synced/pets.json')).toContain(
      'Data file: state.json, a link to synced/pets.json (every change on disk before its answer; changes logged in synced/pets.json.log)',
    )
    expect(text).toContain('send Authorization: Bearer <admin key>')
    expect(text).not.toContain('adm)') // the admin key itself is never printed
  })

  it("says how it reads a revision's schema that, taken literally, refuses what it declares", () => {
    const doc = parseDocument(readFileSync(SPEC_PATH, 'utf8'))
    doc.setIn(['components', 'schemas', 'NewPet', 'additionalProperties'], false)
    const path = join(mkdtempSync(join(tmpdir(), 'petstore-banner-')), 'closed.yaml')
    writeFileSync(path, doc.toString())
    try {
      const line = banner(resolveConfig(['--spec', path], {}), url, 36, 'x')
        .split('\n')
        .filter((l) => l.startsWith('Spec: '))
      expect(line).toEqual([
        expect.stringMatching(/^Spec: #\/components\/schemas\/Pet: .* refuse "id", .*unevaluatedProperties: false\)$/),
      ])
      expect(banner(resolveConfig([], {}), url, 36, 'x')).not.toContain('Spec: ')
    } finally {
      rmSync(dirname(path), { recursive: true, force: true })
    }
  })
})
