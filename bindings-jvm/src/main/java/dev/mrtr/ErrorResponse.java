package dev.mrtr;

/**
 * The JSON-RPC error response a server sends for a refusal, and the HTTP status it goes with
 * ({@code 400}, {@code 404} for -32601, {@code 500} for -32603: docs/status-policy.md), as {@link
 * Mrtr#errorResponse} builds them.
 *
 * @param response the JSON-RPC error response, JSON text: {@code {"jsonrpc":"2.0","id":…,"error":{code,
 *     message, data}}}, {@code data.rule} naming the rule
 * @param status the HTTP status a transport sends it with
 */
public record ErrorResponse(String response, int status) {
  public ErrorResponse {
    if (response == null) throw new IllegalArgumentException("response is null");
  }
}
