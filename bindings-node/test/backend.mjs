// The build of the JavaScript API that the shared tests run against: the
// napi addon (this package, the default), or with MRTR_BACKEND=wasm the wasm
// package, as bindings-wasm/test/shared.test.mjs runs them. Tests named
// napi-* are this package's own and import it directly.
//
// Both are the test builds, with the cargo feature `test-vectors` (the
// corpus's sealing vectors need `__sealWithNonceForTestVectors`): the addon of
// `tools/build.sh --test-vectors` (target/napi-node-test-vectors/, loaded
// through napi's NAPI_RS_NATIVE_LIBRARY_PATH, so it is never in this folder
// where `npm pack` would take it), and the wasm package of
// `bindings-wasm/scripts/build.sh --test-vectors` (bindings-wasm/pkg-test-vectors/).
// The released builds are tested as such by napi-package.test.mjs and
// bindings-wasm/test/artifact.test.mjs.
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const backend = process.env.MRTR_BACKEND === 'wasm' ? 'wasm' : 'napi'

async function load() {
  if (backend === 'wasm') return import('../../bindings-wasm/pkg-test-vectors/lib/api.mjs')
  const dir = fileURLToPath(new URL('../../target/napi-node-test-vectors/', import.meta.url))
  let addon
  try {
    addon = readdirSync(dir).find((f) => /^mrtr\..+\.node$/.test(f))
  } catch {}
  if (!addon) throw new Error(`no test build of the addon in ${dir}: run bindings-node/tools/build.sh --test-vectors`)
  process.env.NAPI_RS_NATIVE_LIBRARY_PATH = dir + addon
  return import('../index.mjs')
}

const mrtr = await load()
export default mrtr
