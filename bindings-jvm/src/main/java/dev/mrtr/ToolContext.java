package dev.mrtr;

import java.util.ArrayList;
import java.util.List;
import mrtr.MrtrException;
import mrtr.ToolRun;

/**
 * A tool's view of its request, for {@link Tool}: the request, the asks, and the data a round keeps.
 * An ask already answered (by this request's {@code inputResponses}, or by a round sealed in its
 * {@code requestState}) returns its answer at once; the first ask without one ends the round, and
 * {@link Mrtr#runTool} answers {@code input_required} asking it. Questions and answers are JSON
 * text, as everywhere in this package.
 *
 * <p>Everything is decided by the core's {@link ToolRun}: the keys (the order of asking), the
 * pins, the round cap, and the refusal policy — a refusal at an ask (an answer that does not fit,
 * a capability the request did not declare) is thrown to the tool <em>and</em> ends the run, even
 * when the tool catches it: the client must see the rule it broke. This class only carries JSON
 * text to the run and back, and ends the tool's play when an ask has no answer.
 */
public final class ToolContext {
  /**
   * The tool stops at an ask without an answer: thrown at the ask, caught by {@link Mrtr#runTool}.
   * An {@link Error}, not an {@link Exception}, so that a tool's {@code catch (Exception e)} lets it
   * by; no stack trace, since it is the ordinary end of a round.
   */
  static final class Suspend extends Error {
    private static final long serialVersionUID = 1L;

    Suspend() {
      super("the tool stops at an ask without an answer", null, false, false);
    }
  }

  private final ToolRun run;
  private final String request;

  ToolContext(ToolRun run, String request) {
    this.run = run;
    this.request = request;
  }

  /** The request, JSON text as the client sent it (this round's). */
  public String request() {
    return request;
  }

  /**
   * The answer to {@code questionJson} (any input request, {@code {"method", "params"}}), under the
   * key of its order: the client's result as it sent it (JSON text). Without one the round ends here.
   *
   * @throws MrtrException the refusal of this ask, which ends the run whatever the tool does next
   */
  public String ask(String questionJson) throws MrtrException {
    return ask(questionJson, null);
  }

  /** {@link #ask(String)} under {@code key}, a key of the tool's choosing (null: its order). */
  public String ask(String questionJson, String key) throws MrtrException {
    return answered(run.ask(questionJson, key));
  }

  /**
   * The answers to every question, in order; those without one are all asked together, in one
   * round, which ends here.
   */
  public List<String> askAll(String... questionsJson) throws MrtrException {
    List<String> answers = new ArrayList<>(questionsJson.length);
    boolean missing = false;
    for (String question : questionsJson) {
      String answer = run.ask(question, null);
      missing |= answer == null;
      answers.add(answer);
    }
    if (missing) throw stop();
    return answers;
  }

  /** A form elicitation's answer ({@code {"action", "content"}}), asking {@code message}. */
  public String elicit(String message, String requestedSchemaJson) throws MrtrException {
    return answered(run.askElicit(message, requestedSchemaJson, null));
  }

  /** A sampling request's answer (the client's {@code CreateMessageResult}). */
  public String sample(String paramsJson) throws MrtrException {
    return ask(Mrtr.questionSample(paramsJson));
  }

  /** The client's roots ({@code {"roots": […]}}). */
  public String roots() throws MrtrException {
    return ask(Mrtr.questionRoots());
  }

  /** How many {@code input_required} rounds came before this request (0 on a first request). */
  public int round() throws MrtrException {
    return run.round();
  }

  /** {@code {"stateId", "expiry"}} of the sealed state the request carried, or null on a first request. */
  public String state() throws MrtrException {
    return run.state();
  }

  /** What the next round gets: what the tool set, else what the last round kept (JSON text, or null). */
  public String data() throws MrtrException {
    return run.data();
  }

  /** Keeps {@code dataJson} (null: nothing) for the next round, sealed with it, in place of the last round's. */
  public void setData(String dataJson) throws MrtrException {
    run.setData(dataJson);
  }

  private String answered(String answer) throws MrtrException {
    if (answer == null) throw stop();
    return answer;
  }

  /** The run asks nothing more (a tool that caught the suspension learns nothing more); the tool stops. */
  private Suspend stop() throws MrtrException {
    run.stop();
    return new Suspend();
  }

  /**
   * Plays {@code tool} once over {@code run} on {@code argumentsJson}: its result, or null when it
   * stopped at an ask without an answer. A refusal recorded at an ask is thrown in place of the
   * tool's own exception; without one, the tool's exception is thrown as it was.
   */
  static <X extends Exception> String play(Tool<X> tool, ToolRun run, String request, String argumentsJson)
      throws MrtrException, X {
    try {
      return tool.run(argumentsJson, new ToolContext(run, request));
    } catch (Suspend stopped) {
      return null;
    } catch (Exception e) {
      run.refused();
      throw e;
    }
  }
}
