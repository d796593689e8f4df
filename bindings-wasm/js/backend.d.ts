// The type js/backend.mjs gives the bytes the API returns (index.d.ts imports it).

/** Bytes the API returns: a `Uint8Array` (there is no Buffer in a page). */
export type PlatformBytes = Uint8Array
