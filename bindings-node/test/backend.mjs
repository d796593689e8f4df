// The build of the JavaScript API that the shared tests run against: the
// napi addon (this package, the default), or with MRTR_BACKEND=wasm the wasm
// package (bindings-wasm/pkg, built first), as bindings-wasm/test/shared.test.mjs
// runs them. Tests named napi-* are this package's own and import it directly.
export const backend = process.env.MRTR_BACKEND === 'wasm' ? 'wasm' : 'napi'
const mrtr = await import(backend === 'wasm' ? '../../bindings-wasm/pkg/lib/api.mjs' : '../index.mjs')
export default mrtr
