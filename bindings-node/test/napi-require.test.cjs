// CommonJS smoke test: require('mrtr') (the package's own name) works and
// gives the same API as the ES module.
const { test } = require('node:test')
const assert = require('node:assert/strict')

test('require("mrtr") classifies, builds and refuses', () => {
  const mrtr = require('mrtr')
  assert.equal(mrtr, require('../index.js'))
  const c = mrtr.classify('{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s1"}}')
  assert.equal(c.kind, mrtr.Kind.InputRequired)
  assert.throws(() => mrtr.classify('{'), (e) => e instanceof mrtr.ProtocolError && e.rule === 'jsonrpc-parse-error' && e.code === -32700)
  assert.equal(typeof mrtr.Client, 'function')
})
