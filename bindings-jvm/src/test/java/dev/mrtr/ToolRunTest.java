package dev.mrtr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import mrtr.KeyRing;
import mrtr.MrtrException;
import mrtr.ResultType;
import mrtr.ToolBridge;
import org.junit.jupiter.api.Test;

/**
 * {@link Mrtr#runTool} over the core's ToolRun: the round sequence (an unanswered ask ends the round
 * with {@code input_required}, the retry completes) and the refusal policy, the same as Python's and
 * JavaScript's: a refusal at an ask ends the run even when the tool caught it, and wins over the
 * tool's own exception; without one, the tool's exception is thrown as it was.
 */
class ToolRunTest {
  static final String P = "2026-07-28";
  static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}";
  static final String ANSWER = "{\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}}}";
  static final ToolSettings SETTINGS = ToolSettings.builder().build();
  static final CallContext ALICE = CallContext.of("alice", 1000);
  /** A {@code 2025-11-25} call, as the legacy bridge serves it (the client declared its capabilities at initialize). */
  static final String LEGACY_CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":1}}}";

  /** Asks the name, greets: the await-style tool of every test here. */
  static String greet(String argumentsJson, ToolContext ctx) throws MrtrException {
    String answer = ctx.elicit("Name?", SCHEMA);
    String name = answer.replaceAll(".*\"name\":\"([^\"]*)\".*", "$1");
    return "{\"content\":[{\"type\":\"text\",\"text\":" + Json.quote(name + " " + argumentsJson) + "}]}";
  }

  static <X extends Exception> String run(KeyRing ring, Tool<X> tool, String request) throws MrtrException, X {
    return Mrtr.runTool(tool, request, ring, SETTINGS, ALICE, null);
  }

  static KeyRing ring() throws MrtrException {
    return new KeyRing(1, "xaes-256-gcm", JavaApiTest.secret());
  }

  @Test
  void anUnansweredAskIsInputRequiredAndTheRetryCompletes() throws MrtrException {
    try (KeyRing ring = ring()) {
      String asked = run(ring, ToolRunTest::greet, JavaApiTest.CALL);
      assertEquals(ResultType.INPUT_REQUIRED, Mrtr.classify(asked, P).getResultType());
      assertTrue(asked.contains("\"q1\"") && asked.contains("\"requestState\""), asked);
      String retry = Mrtr.retry(JavaApiTest.CALL, asked, ANSWER, "2", P);
      String done = run(ring, ToolRunTest::greet, retry);
      assertEquals(ResultType.COMPLETE, Mrtr.classify(done, P).getResultType());
      assertTrue(done.contains("octocat {\\\"a\\\":1}"), done); // the answer, and the request's arguments
    }
  }

  @Test
  void theDataAToolSetsComesBackNextRound() throws MrtrException {
    List<String> seen = new ArrayList<>();
    Tool<RuntimeException> tool = (args, ctx) -> {
      seen.add(ctx.round() + " " + ctx.data() + " " + (ctx.state() != null));
      ctx.setData("{\"step\":" + (ctx.round() + 1) + "}");
      return greet(args, ctx);
    };
    try (KeyRing ring = ring()) {
      String asked = run(ring, tool, JavaApiTest.CALL);
      run(ring, tool, Mrtr.retry(JavaApiTest.CALL, asked, ANSWER, "2", P));
    }
    assertEquals(List.of("0 null false", "1 {\"step\":1} true"), seen);
  }

  @Test
  void askAllAsksEveryUnansweredQuestionInOneRound() throws MrtrException {
    String name = Mrtr.questionElicit("Name?", SCHEMA);
    Tool<RuntimeException> tool = (args, ctx) -> {
      List<String> answers = ctx.askAll(name, Mrtr.questionElicit("City?", SCHEMA));
      return "{\"content\":[{\"type\":\"text\",\"text\":" + Json.quote(answers.get(1)) + "}]}";
    };
    try (KeyRing ring = ring()) {
      String asked = run(ring, tool, JavaApiTest.CALL);
      assertTrue(asked.contains("\"q1\"") && asked.contains("\"q2\""), asked);
      String both = "{\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}},\"q2\":{\"action\":\"accept\",\"content\":{\"name\":\"Paris\"}}}";
      String done = run(ring, tool, Mrtr.retry(JavaApiTest.CALL, asked, both, "2", P));
      assertTrue(done.contains("Paris") && !done.contains("octocat"), done); // the second answer, in order
    }
  }

  @Test
  void aToolsCatchOfExceptionLetsTheSuspensionBy() throws MrtrException {
    Tool<RuntimeException> tool = (args, ctx) -> {
      try {
        return greet(args, ctx);
      } catch (Exception e) {
        return "{\"content\":[]}"; // never reached: the suspension is no Exception
      }
    };
    try (KeyRing ring = ring()) {
      assertEquals(ResultType.INPUT_REQUIRED, Mrtr.classify(run(ring, tool, JavaApiTest.CALL), P).getResultType());
    }
  }

  @Test
  void aRefusalAtAnAskWinsEvenWhenTheToolCaughtIt() throws MrtrException {
    String notAQuestion = "{\"method\":\"tools/list\",\"params\":{}}";
    List<String> caught = new ArrayList<>();
    Tool<RuntimeException> returns = (args, ctx) -> {
      try {
        ctx.ask(notAQuestion);
      } catch (MrtrException e) {
        caught.add(Mrtr.rule(e));
      }
      return "{\"content\":[]}"; // a result without the answer it never had
    };
    Tool<IllegalStateException> raises = (args, ctx) -> {
      try {
        ctx.ask(notAQuestion);
      } catch (MrtrException e) {
        caught.add(Mrtr.rule(e));
      }
      throw new IllegalStateException("the tool's own error, raised instead");
    };
    try (KeyRing ring = ring()) {
      MrtrException returned = assertThrows(MrtrException.class, () -> run(ring, returns, JavaApiTest.CALL));
      MrtrException raised = assertThrows(MrtrException.class, () -> run(ring, raises, JavaApiTest.CALL));
      assertEquals(List.of(Mrtr.rule(returned), Mrtr.rule(raised)), caught);
      assertEquals("input-request-invalid", Mrtr.rule(returned));
      ErrorResponse sent = Mrtr.errorResponse("1", returned, P);
      assertEquals(400, sent.status());
      assertTrue(sent.response().contains("\"rule\":\"input-request-invalid\""), sent.response());
    }
  }

  @Test
  void anAskTheRequestCannotAnswerIsRefusedWithWhatItNeeds() throws MrtrException {
    // The call declares elicitation only: asking for sampling ends with -32021 and requiredCapabilities.
    Tool<RuntimeException> tool = (args, ctx) -> ctx.sample("{\"messages\":[],\"maxTokens\":5}");
    try (KeyRing ring = ring()) {
      MrtrException e = assertThrows(MrtrException.Protocol.class, () -> run(ring, tool, JavaApiTest.CALL));
      assertEquals("request-capability-missing", Mrtr.rule(e));
      assertEquals(-32021, Mrtr.code(e));
      assertTrue(Mrtr.data(e).contains("\"requiredCapabilities\""), Mrtr.data(e));
    }
  }

  @Test
  void withoutARefusalTheToolsOwnExceptionIsThrownAsItWas() throws MrtrException {
    IOException own = new IOException("the tool's own");
    Tool<IOException> tool = (args, ctx) -> {
      throw own;
    };
    try (KeyRing ring = ring()) {
      assertSame(own, assertThrows(IOException.class, () -> run(ring, tool, JavaApiTest.CALL)));
    }
  }

  @Test
  void aRefusedStateIsThrownBeforeTheToolRuns() throws MrtrException {
    try (KeyRing ring = ring()) {
      String retry = Mrtr.retry(JavaApiTest.CALL, run(ring, ToolRunTest::greet, JavaApiTest.CALL), ANSWER, "2", P);
      Tool<RuntimeException> never = (args, ctx) -> {
        throw new AssertionError("the tool ran on another principal's state");
      };
      MrtrException.State e = assertThrows(MrtrException.State.class,
          () -> Mrtr.runTool(never, retry, ring, SETTINGS, CallContext.of("mallory", 1001), null));
      assertEquals("state-wrong-subject", e.getRule());
    }
  }

  @Test
  void aBridgedRoundSendsTheQuestionThenCompletesWithTheAnswer() throws MrtrException {
    try (ToolBridge bridge = new ToolBridge(LEGACY_CALL, "0123456789abcdef", null)) {
      Mrtr.runToolRound(ToolRunTest::greet, bridge, LEGACY_CALL, "{\"a\":1}", 0);
      String asked = bridge.pollWrite();
      assertTrue(asked != null && asked.contains("elicitation/create"), asked);
      String id = bridge.pending().get(0);
      String answer = "{\"jsonrpc\":\"2.0\",\"id\":" + (id.matches("-?[0-9]+") ? id : Json.quote(id)) + ",\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}}}";
      assertTrue(bridge.handleAnswer(answer, 1));
      Mrtr.runToolRound(ToolRunTest::greet, bridge, LEGACY_CALL, "{\"a\":1}", 2);
      StringBuilder written = new StringBuilder();
      for (String text; (text = bridge.pollWrite()) != null; ) written.append(text);
      assertTrue(bridge.isDone() && written.toString().contains("octocat"), written.toString());
    }
  }

  @Test
  void aBridgedRoundEndsTheCallWithARefusalTheToolCaught() throws MrtrException {
    Tool<RuntimeException> tool = (args, ctx) -> {
      try {
        ctx.ask("{\"method\":\"tools/list\",\"params\":{}}");
      } catch (MrtrException e) {
        return "{\"content\":[]}";
      }
      return "{\"content\":[]}";
    };
    try (ToolBridge bridge = new ToolBridge(LEGACY_CALL, "0123456789abcdef", null)) {
      Mrtr.runToolRound(tool, bridge, LEGACY_CALL, null, 0);
      StringBuilder written = new StringBuilder();
      for (String text; (text = bridge.pollWrite()) != null; ) written.append(text);
      assertTrue(bridge.isDone() && written.toString().contains("input-request-invalid"), written.toString());
      assertNull(bridge.pollWrite());
    }
  }
}
