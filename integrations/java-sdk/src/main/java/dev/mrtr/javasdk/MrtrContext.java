package dev.mrtr.javasdk;

import dev.mrtr.Mrtr;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import mrtr.MrtrException;
import mrtr.ToolReplay;

/**
 * What an {@link MrtrHandler} asks the client through: each question returns the client's answer
 * when the request carries it (the core matches it to the question, in the order asked), and
 * otherwise stops the handler, so the adapter answers {@code input_required} with the question and a
 * sealed {@code requestState}. Code before a question runs again on every round (the handler is
 * replayed, not resumed): keep side effects after the last question.
 */
public final class MrtrContext {
  static final TypeRef<Map<String, Object>> MAP = new TypeRef<>() {};

  /** The handler stops at a question without an answer: an {@link Error}, so a {@code catch (Exception e)} lets it by. */
  static final class Suspend extends Error {
    private static final long serialVersionUID = 1L;

    Suspend() {
      super("the handler stops at a question without an answer", null, false, false);
    }
  }

  private final ToolReplay replay;
  private final Map<String, Object> request;
  private final McpJsonMapper json;
  private boolean suspended;

  MrtrContext(ToolReplay replay, Map<String, Object> request, McpJsonMapper json) {
    this.replay = replay;
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

  boolean suspended() {
    return suspended;
  }

  /** The answer to any input request, given as JSON text ({@code {"method": …, "params": …}}). */
  public Map<String, Object> ask(String inputRequest) throws MrtrException {
    if (suspended) throw new Suspend(); // once stopped, nothing more is asked
    String answer = replay.ask(inputRequest, null);
    if (answer == null) {
      suspended = true;
      throw new Suspend();
    }
    return read(answer);
  }

  /** The answer to any input request, given as a map ({@code {"method": …, "params": …}}). */
  public Map<String, Object> ask(Map<String, Object> inputRequest) throws MrtrException {
    return ask(write(inputRequest));
  }

  /** A form elicitation's answer ({@code {"action", "content"}}). */
  public Map<String, Object> elicit(String message, Map<String, Object> requestedSchema) throws MrtrException {
    return ask(Mrtr.questionElicit(message, write(requestedSchema)));
  }

  /** A sampling request's answer (the client's {@code CreateMessageResult}); {@code params} as {@code sampling/createMessage} takes them. */
  public Map<String, Object> sample(Map<String, Object> params) throws MrtrException {
    return ask(Mrtr.questionSample(write(params)));
  }

  /** The client's roots ({@code {"roots": […]}}). */
  public Map<String, Object> roots() throws MrtrException {
    return ask(Mrtr.questionRoots());
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
