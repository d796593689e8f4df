package dev.mrtr.example;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.mrtr.ToolContext;
import mrtr.MrtrException;

/**
 * A tool's view of one request, in Gson's values: the request, and the asks of the package's
 * {@link ToolContext}, each returning the client's answer or ending the round there (the package's
 * {@code runTool} answers {@code input_required} asking it). The core decides the keys, the pins,
 * every JSON shape and the refusals; this class only turns JSON text into Gson objects and back.
 *
 * <p>Code before an ask runs again on every round (the tool is replayed, not resumed), so it must be
 * free of side effects: do them after the last ask, under a replay guard.
 */
public final class Ctx {
  private final ToolContext ctx;
  private final JsonObject request;

  Ctx(ToolContext ctx, JsonObject request) {
    this.ctx = ctx;
    this.request = request;
  }

  /** The request (as the client sent it). */
  public JsonObject request() {
    return request;
  }

  /** The answer to {@code question} (any input request, as JSON text): the client's result as it sent it. */
  public JsonObject ask(String question) throws MrtrException {
    return JsonParser.parseString(ctx.ask(question)).getAsJsonObject();
  }

  /** A form elicitation's answer ({@code {"action", "content"}}). */
  public JsonObject elicit(String message, JsonObject requestedSchema) throws MrtrException {
    return JsonParser.parseString(ctx.elicit(message, requestedSchema.toString())).getAsJsonObject();
  }

  /** A sampling request's answer (the client's {@code CreateMessageResult}). */
  public JsonObject sample(JsonObject params) throws MrtrException {
    return JsonParser.parseString(ctx.sample(params.toString())).getAsJsonObject();
  }

  /** The client's roots ({@code {"roots": […]}}). */
  public JsonObject roots() throws MrtrException {
    return JsonParser.parseString(ctx.roots()).getAsJsonObject();
  }
}
