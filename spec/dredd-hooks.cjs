// Dredd hooks for spec/petstore.yaml (CommonJS: Dredd loads hooks with require). Dredd sends every documented
// response's request as the spec's examples write it, with the key from `--header`; an error status needs the
// request that provokes it, which a request example cannot write: these hooks make it, one rule per status.
const hooks = require('hooks')

hooks.beforeEach((transaction, done) => {
  const status = String(transaction.expected.statusCode)
  const headers = transaction.request.headers
  if (status === '401') {
    // Missing or invalid API key: no Authorization header at all.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name]
  } else if (status === '400' && transaction.request.method === 'POST') {
    // Required field missing: categoryId.
    transaction.request.body = JSON.stringify({ name: 'Rex' })
  } else if (status === '404') {
    // No animal with that identifier.
    transaction.fullPath = transaction.fullPath.replace(/\/[^/]+$/, '/999999999')
    transaction.request.uri = transaction.request.uri.replace(/\/[^/]+$/, '/999999999')
  }
  done()
})
