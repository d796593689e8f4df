package dev.mrtr.example;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.mrtr.Mrtr;
import mrtr.MrtrException;
import mrtr.ToolReplay;

/**
 * A tool's view of one replay of its request: the request, and the asks. An ask already answered
 * (by this request's {@code inputResponses}, or by a round sealed in its {@code requestState})
 * returns its answer at once; the first ask without one stops the tool ({@link Suspend}), and the
 * server answers {@code input_required} asking it. The core decides the keys (the order of asking),
 * the pins and every JSON shape; this class only carries JSON text to it and back.
 *
 * <p>Code before an ask runs again on every round (the tool is replayed, not resumed), so it must be
 * free of side effects: do them after the last ask, under a replay guard.
 */
public final class Ctx {
  /**
   * The tool stops at an ask without an answer. An {@link Error}, not an {@link Exception}, so a
   * tool's {@code catch (Exception e)} lets it by (it carries no stack trace).
   */
  static final class Suspend extends Error {
    private static final long serialVersionUID = 1L;

    Suspend() {
      super("the tool stops at an ask without an answer", null, false, false);
    }
  }

  private final ToolReplay replay;
  private final JsonObject request;
  private boolean suspended; // an ask had no answer: the replay's input_required asks it

  Ctx(ToolReplay replay, JsonObject request) {
    this.replay = replay;
    this.request = request;
  }

  /** The request (as the client sent it). */
  public JsonObject request() {
    return request;
  }

  /** Whether the tool stopped at an ask without an answer. */
  boolean suspended() {
    return suspended;
  }

  /** The answer to {@code question} (any input request, as JSON text): the client's result as it sent it. */
  public JsonObject ask(String question) throws MrtrException {
    if (suspended) throw new Suspend(); // once stopped, nothing more is asked
    String answer = replay.ask(question, null);
    if (answer == null) {
      suspended = true;
      throw new Suspend();
    }
    return JsonParser.parseString(answer).getAsJsonObject();
  }

  /** A form elicitation's answer ({@code {"action", "content"}}). */
  public JsonObject elicit(String message, JsonObject requestedSchema) throws MrtrException {
    return ask(Mrtr.questionElicit(message, requestedSchema.toString()));
  }

  /** A sampling request's answer (the client's {@code CreateMessageResult}). */
  public JsonObject sample(JsonObject params) throws MrtrException {
    return ask(Mrtr.questionSample(params.toString()));
  }

  /** The client's roots ({@code {"roots": […]}}). */
  public JsonObject roots() throws MrtrException {
    return ask(Mrtr.questionRoots());
  }
}
