// The three benchmark messages: one JS definition, shared with the Node
// package's bench (bindings-node/bench/messages.mjs), so both packages measure
// the same bytes as each other (and, field for field, as core/benches).
export { opaqueState, retryRequest, inputRequiredSmall, inputRequiredLarge } from '../../bindings-node/bench/messages.mjs'
