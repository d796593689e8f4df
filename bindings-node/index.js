'use strict'
// mrtr for Node, as CommonJS: the same module as the ES entry point
// (lib/api.mjs, through require(esm), Node >= 20.19), so both share every
// object and class.
module.exports = require('./lib/api.mjs')
