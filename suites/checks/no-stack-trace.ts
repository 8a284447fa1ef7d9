import { exchangeCheck } from './check.js'
import { requestLine } from './util.js'

// Frames of the common runtimes: Node/V8, Python, Java/.NET, Go, Ruby, PHP.
const STACK_TRACE = [
  /(?:^|\\n|\n)\s*at [^\n"]*?:\d+:\d+\)?/, // JSON escapes the newline before each frame
  /Traceback \(most recent call last\)/,
  /\bat [\w$.]+\([\w$]+\.(java|kt|scala):\d+\)/,
  /\bat [\w.]+\(.*\) in .+:line \d+/,
  /goroutine \d+ \[running\]/,
  /\.rb:\d+:in `/,
  /#\d+ \/.+\.php\(\d+\)/,
]

/** Error bodies do not leak stack traces (good practice, not in the interface), whatever the request. */
export const noStackTrace = exchangeCheck({
  id: 'error.no-stack-trace',
  title: 'Error bodies carry no stack trace',
  severity: 'advice',
  on: { operation: 'any', when: ({ response }) => response.status >= 400 },
  run: ({ exchange, response }) => {
    const match = STACK_TRACE.map((p) => p.exec(response.rawBody)).find(Boolean)
    return match
      ? [
          `${requestLine(exchange)} answered ${response.status} with a stack trace in the body ("${match[0].slice(0, 80)}")`,
        ]
      : []
  },
})
