// The cases both benches time: the three benchmark messages (messages.mjs),
// each with the zod schema of its MRTR shape that classify is compared with,
// built from an official SDK's parts (`sdk`: the v2 `@modelcontextprotocol/core`
// here, the v1 `@modelcontextprotocol/sdk/types.js` in bindings-wasm/bench),
// shaped as the SDK's own internal InputRequiredResult / retry schemas. Each
// bench passes its own zod (`z`, zod/v4), so that this file imports no package.
import { retryRequest, inputRequiredSmall, inputRequiredLarge } from './messages.mjs'

/** `[name, message, schema, kind]` of each benchmark message. */
export function benchCases(z, sdk) {
  // The SDK's ElicitRequest is the 2025-11-25 one (URL mode requires an
  // elicitationId); in 2026-07-28 URL mode carries none, so the URL variant drops it.
  const ElicitRequest = z.object({
    method: z.literal('elicitation/create'),
    params: z.union([sdk.ElicitRequestFormParamsSchema, sdk.ElicitRequestURLParamsSchema.omit({ elicitationId: true })]),
  })
  const InputRequest = z.union([ElicitRequest, sdk.CreateMessageRequestSchema, sdk.ListRootsRequestSchema])
  const InputResponse = z.union([sdk.CreateMessageResultSchema, sdk.ListRootsResultSchema, sdk.ElicitResultSchema])
  const RetryRequest = z.object({
    jsonrpc: z.literal('2.0'),
    id: sdk.RequestIdSchema,
    method: z.literal('tools/call'),
    params: sdk.CallToolRequestParamsSchema.extend({
      inputResponses: z.record(z.string(), InputResponse).optional(),
      requestState: z.string().optional(),
    }),
  })
  const InputRequiredResponse = z.object({
    jsonrpc: z.literal('2.0'),
    id: sdk.RequestIdSchema,
    result: z.looseObject({
      resultType: z.literal('input_required'),
      inputRequests: z.record(z.string(), InputRequest).optional(),
      requestState: z.string().optional(),
    }),
  })
  return [
    ['retry request', retryRequest(), RetryRequest, 'request'],
    ['input_required result', inputRequiredSmall(), InputRequiredResponse, 'input_required'],
    ['64-request result', inputRequiredLarge(), InputRequiredResponse, 'input_required'],
  ]
}
