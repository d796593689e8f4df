// mrtr for Node, as an ES module: the one JavaScript API (lib/api.mjs) over the
// napi addon.
export * from './lib/api.mjs'
export { default } from './lib/api.mjs'
