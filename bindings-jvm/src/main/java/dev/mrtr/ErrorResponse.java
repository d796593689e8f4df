package dev.mrtr;

import java.util.Map;

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

  /** The core's {@code {"response": …, "status": …}}. */
  static ErrorResponse fromJson(String json) {
    Map<String, String> members = Json.members(json);
    return new ErrorResponse(members.get("response"), Integer.parseInt(members.get("status")));
  }
}
