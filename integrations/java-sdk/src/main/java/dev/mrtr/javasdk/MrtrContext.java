package dev.mrtr.javasdk;

import dev.mrtr.ToolContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import mrtr.MrtrException;

/**
 * What an {@link MrtrHandler} asks the client through, in plain maps: each question returns the
 * client's answer when the request carries it (the core matches it to the question, in the order
 * asked), and otherwise stops the handler, so the adapter answers {@code input_required} with the
 * question and a sealed {@code requestState}. A thin layer over the JVM package's {@link
 * ToolContext}, whose run ({@code Mrtr.runTool}) decides the rounds and the refusals. Code before a
 * question runs again on every round (the handler is replayed, not resumed): keep side effects
 * after the last question.
 */
public final class MrtrContext {
  static final TypeRef<Map<String, Object>> MAP = new TypeRef<>() {};

  private final ToolContext ctx;
  private final Map<String, Object> request;
  private final McpJsonMapper json;

  MrtrContext(ToolContext ctx, Map<String, Object> request, McpJsonMapper json) {
    this.ctx = ctx;
    this.request = request;
    this.json = json;
  }

  /** The JSON-RPC request as the client sent it (this round's). */
  public Map<String, Object> request() {
    return request;
  }

  /** The request's {@code params}. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> params() {
    Object params = request.get("params");
    return params instanceof Map ? (Map<String, Object>) params : Map.of();
  }

  /**
   * The answer to any input request, given as JSON text ({@code {"method": …, "params": …}}). A
   * refusal of the ask is thrown here and ends the call with its error, even if the handler catches it.
   */
  public Map<String, Object> ask(String inputRequest) throws MrtrException {
    return read(ctx.ask(inputRequest));
  }

  /** The answer to any input request, given as a map ({@code {"method": …, "params": …}}). */
  public Map<String, Object> ask(Map<String, Object> inputRequest) throws MrtrException {
    return ask(write(inputRequest));
  }

  /** A form elicitation's answer ({@code {"action", "content"}}). */
  public Map<String, Object> elicit(String message, Map<String, Object> requestedSchema) throws MrtrException {
    return read(ctx.elicit(message, write(requestedSchema)));
  }

  /** A sampling request's answer (the client's {@code CreateMessageResult}); {@code params} as {@code sampling/createMessage} takes them. */
  public Map<String, Object> sample(Map<String, Object> params) throws MrtrException {
    return read(ctx.sample(write(params)));
  }

  /** The client's roots ({@code {"roots": […]}}). */
  public Map<String, Object> roots() throws MrtrException {
    return read(ctx.roots());
  }

  private Map<String, Object> read(String text) {
    try {
      return json.readValue(text, MAP);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
