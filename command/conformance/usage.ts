/** The `--help` text of `petstore-conformance`, with the check catalogue read from the table. */
import { spec } from '../../spec/index.js'
import { catalogueFor, recordAllowances, recordBudget } from '../../suites/index.js'
import { DEFAULT_CONCURRENCY, DEFAULT_REPORTERS, DEFAULT_RUNS, DEFAULT_TIMEOUT_MS, REPORTERS } from './config.js'

/** The `--help` text. */
export function usage(): string {
  const budget = (runs: number) => recordBudget(recordAllowances(runs))
  const fixed = budget(1) - 1 - recordAllowances(1).stateful // what does not grow with --runs
  const catalogue = catalogueFor(spec())
    .map((c) => `  ${c.id.padEnd(34)} ${c.severity.padEnd(8)} ${c.title}`)
    .join('\n')
  return `Usage: petstore-conformance [--base-url URL] [--api-key KEY] [options]

Checks that a Pet Store service conforms to its interface (spec/petstore.yaml). Without --base-url it
starts the kit's own stub on a free loopback port and runs against it.

Target:
  --base-url URL       base address, /v1 included (env PETSTORE_BASE_URL)
  --api-key KEY        API key, sent as "Authorization: Bearer KEY" (env PETSTORE_API_KEY); never printed
  --via-prism          send the traffic through Prism's validating proxy and report its violations too
  --spec FILE          judge by this revision of the interface (OpenAPI 3.1, the same three operations);
                       the embedded stub serves it too (default: the bundled spec/petstore.yaml)

Effort and replay:
  --seed N             fast-check seed (printed at the start of every run), to replay a run
  --runs N             fast-check runs per property (default ${DEFAULT_RUNS})
  --timeout MS         per-request timeout in ms (default ${DEFAULT_TIMEOUT_MS})
  --concurrency N      requests in flight at most (default ${DEFAULT_CONCURRENCY}); requests that depend on
                       each other keep their order
  --max-time S         stop sending after S seconds; a run stopped before every check was judged exits 2
                       (default: no limit, every check is judged however slow the target)
  --replay FILE        send each failing finding's requests of a report.json again and say, per finding,
                       FIXED or STILL FAILING (with --base-url, against another target)

Selection and verdict:
  --check ID           run only this check (repeatable; a prefix such as listPets.limit selects a group);
                       the verdict then says so: "conformant for the 4 selected checks (51 not run)"
  --operation OP       run only the checks of this operation: listPets, createPet, getPet (repeatable)
  --strict             advice (e.g. missing Deprecation/Sunset headers) fails the run too

Reports:
  --reporter NAME      add a report: ${REPORTERS.join(', ')} (repeatable); ${DEFAULT_REPORTERS.join(', ')}
                       are always written, so --reporter markdown writes report.md besides them
  --output-dir DIR     where report.json, report.html, report.md and junit.xml go (default ./reports)
  -q, --quiet          no progress and no console report; the verdict line is printed all the same
  --verbose            the console report in full: every finding's exchange with bodies whole, every passed
                       check and every choice where the interface is silent (by default, counts)
  -h, --help, -v, --version

Shared environments: every pet the run creates is named "pcs-<run id>-..." (one test sends an empty
name). A run creates at most ${budget(DEFAULT_RUNS)} pets with the default --runs ${DEFAULT_RUNS}
(with --runs N: at most ${fixed} + N + min(60, max(6, 3 * ceil(N / 3)))), and none to fill the list
when the target already holds a full page. There is no delete operation, so these records stay.
Rate limiting (429, or 503 with Retry-After) is waited out and never reported as a failure: a throttled
request waits what Retry-After asks, the others go on at a pace that follows the limit. Progress says
while the run waits, and every report counts the 429 and 503 answers and the time waited.

Exit codes: 0 conformant (every applicable check judged, none failing), 1 at least one failing check,
2 could not run or could not finish (bad usage, target unreachable, wrong key, base URL not serving the
interface, rate-limited throughout, a Retry-After longer than a run waits, --max-time reached, checks left
unjudged, interrupted by SIGINT or SIGTERM), said in one line; the reports (with --output-dir, or once
the run has started) say why, what was tried and what to do. A service that answers the interface without
the documented /v1 prefix fails base-url.version-prefix (exit 1).

Checks (id, severity, what must hold):
${catalogue}
`
}
