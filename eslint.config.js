// `npm run lint`: the layers of docs/architecture.md, kept by import-x's no-restricted-paths, and typescript-eslint's
// recommended rules. Formatting is Prettier's. Each zone names the files it binds (`target`) and what they may not
// import (`from`, but for `except`); paths are from the project root.
import { defineConfig } from 'eslint/config'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'

/** The product's layers, top to bottom; bin/ only loads the build. */
const PRODUCT = ['command', 'stub', 'suites', 'reporters', 'model', 'spec']

/** Test helpers: test files and the modules only tests import. */
const TEST_HELPERS = ['**/*.test.ts', '**/test-support/**', '**/test-support.ts', '**/testing.ts', '**/*.check.ts']

/** What reads the spec in use, or the bundled one, rather than the spec a run judges. */
const GLOBAL_SPEC = ['spec', 'useSpec', 'bundledSpec', 'loadSpec', 'specFrom', 'SPEC_PATH']

const others = (...layers) => PRODUCT.filter((layer) => !layers.includes(layer))
const sources = (layer) => `${layer}/**`

/** The layer rules; a file matching no target is not bound (tests may import anything). */
const ZONES = [
  {
    target: sources('spec'),
    from: others('spec'),
    message: 'spec/ is the bottom layer: it imports nothing of the other layers.',
  },
  {
    target: sources('model'),
    from: others('model', 'spec'),
    message: 'model/ imports only spec/ (through its index.ts) and itself.',
  },
  {
    target: sources('stub'),
    from: ['suites', 'reporters', 'command'],
    message:
      'stub/ and suites/ never import each other (they meet over HTTP or the Fetch handler); stub/ imports only spec/ and model/.',
  },
  {
    target: sources('suites'),
    from: ['stub', 'reporters', 'command'],
    message:
      'suites/ and stub/ never import each other (they meet over HTTP or the Fetch handler); suites/ imports only spec/ and model/.',
  },
  {
    target: sources('reporters'),
    from: ['stub', 'suites', 'command'],
    message: "reporters/ read the result model: they never import the suite's engine, the stub or the command.",
  },
  // Another layer is reached only through its index.ts (suites/prism/ through its own, loaded only with --via-prism).
  ...PRODUCT.map((layer) => ({
    target: others(layer).map(sources),
    from: layer,
    except: layer === 'suites' ? ['./index.ts', './prism/index.ts'] : ['./index.ts'],
    message: `other layers import ${layer}/ only through its index.ts.`,
  })),
  {
    target: 'command/library.ts',
    from: 'command/conformance/cli.ts',
    message: "the library shares the engine with the command, not the command's CLI (flags, signals, exit codes).",
  },
  {
    target: [...PRODUCT, 'bench', 'scripts', 'bin'].map(sources),
    from: TEST_HELPERS,
    message: 'no product code or tool imports test helpers (test files, test-support/, stub/testing.ts).',
  },
]

/**
 * One way to start a target and one way to run a process in tests (test-support/README.md): targets through
 * test-support/targets.ts, child processes through test-support/run-command.ts. Test files may not start them
 * another way; test-support/ implements the two ways.
 */
const START_TARGETS = 'tests start targets with targets(hook) of test-support/targets.ts (see test-support/README.md).'
const RUN_PROCESSES =
  'tests start processes with test-support/run-command.ts: runCommand/startCommand for the kit, runProcess/startProcess/runProcessSync for others.'
const oneWay = (...extraPatterns) => ({
  paths: [
    ...['node:child_process', 'child_process'].map((name) => ({
      name,
      allowTypeImports: true,
      message: RUN_PROCESSES,
    })),
    ...['http', 'https', 'net', 'tls', 'http2'].flatMap((name) =>
      [name, `node:${name}`].map((n) => ({ name: n, importNames: ['createServer'], message: START_TARGETS })),
    ),
  ],
  patterns: [
    {
      regex: 'test-support/(stacks|targets/server|frameworks/(express|fastify|index))\\.js$',
      importNames: ['startStack', 'startIndependent', 'startExpress', 'startFastify'],
      message: START_TARGETS,
    },
    ...extraPatterns,
  ],
})
const ONE_WAY_SYNTAX = [
  { selector: "CallExpression[callee.property.name='createServer']", message: START_TARGETS },
  {
    selector: "CallExpression[callee.property.name='serveFetch'], CallExpression[callee.name='serveFetch']",
    message: START_TARGETS,
  },
  {
    selector: "CallExpression[callee.property.name='start'][callee.object.object.name='FRAMEWORKS']",
    message: START_TARGETS,
  },
]

export default defineConfig(
  // A directive may name a core rule this set leaves off (no-control-regex): it says why where it stands.
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  { ignores: ['node_modules/', 'dist/', 'dist.*/', 'reports/', 'tmp/', 'fixtures/', 'spec/client-types.ts'] },
  tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a binding kept unused on purpose (a rest's siblings, a tuple's slot).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Parsed YAML and JSON trees are walked as `Record<string, any>` on purpose; tsc's strict mode checks the rest.
      '@typescript-eslint/no-explicit-any': 'off',
      // A `let` that a closure reads before its one assignment (a signal handler set up first) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.cjs'], // CommonJS by design (Dredd's hooks)
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.{ts,js,mjs,cjs}'],
    plugins: { 'import-x': importX },
    settings: {
      // Imports name the compiled `.js`; the sources are `.ts`.
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
      // no-cycle reads the modules an import reaches: TypeScript ones too, with typescript-eslint's parser.
      'import-x/extensions': ['.ts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: ZONES }],
    },
  },
  {
    // Rooms one reader holds: a product source file within 500 lines, a function within 5 positional parameters
    // (more go in one object).
    files: PRODUCT.map((layer) => `${layer}/**/*.ts`),
    ignores: TEST_HELPERS,
    rules: {
      'max-lines': ['error', { max: 500 }],
      '@typescript-eslint/max-params': ['error', { max: 5 }],
      // Modules that import each other have no order to read them in (nor to load them in): none of the product's do.
      'import-x/no-cycle': 'error',
    },
  },
  {
    // One door to the spec: a check, a scenario or the values they draw read the spec they judge from their arguments
    // (a check's title, basis or statuses the spec decides are functions of it, resolved where the catalogue is built),
    // never the spec in use or the bundled one, which a run given --spec does not judge by.
    files: ['suites/checks/**/*.ts', 'suites/scenarios/**/*.ts', 'suites/values/**/*.ts'],
    ignores: TEST_HELPERS,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)spec/(index|load)\\.js$',
              importNames: [...GLOBAL_SPEC],
              message:
                'checks, scenarios and values reach the spec only through their arguments (a check part the spec decides is a function of it): see suites/README.md.',
            },
          ],
        },
      ],
    },
  },
  {
    // Test helpers may import anything; ESLint applies the last matching setting.
    files: TEST_HELPERS,
    rules: { 'import-x/no-restricted-paths': 'off' },
  },
  {
    files: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        oneWay({ regex: '(^|/)stub/(index|stub)\\.js$', importNames: ['startStub'], message: START_TARGETS }),
      ],
      'no-restricted-syntax': ['error', ...ONE_WAY_SYNTAX],
    },
  },
  {
    // The stub's own tests test its server, startStub included.
    files: ['stub/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', oneWay()] },
  },
)
