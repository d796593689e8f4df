// The type lib/backend.mjs gives the bytes the API returns (index.d.ts imports it).

/** Bytes the API returns: a Node `Buffer`. */
export type PlatformBytes = Buffer
