package dev.mrtr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import mrtr.Binding;
import mrtr.Client;
import mrtr.ClientEvent;
import mrtr.ErrorArea;
import mrtr.KeyRing;
import mrtr.MessageKind;
import mrtr.MrtrException;
import mrtr.Mrtr_uniffiKt;
import mrtr.ReplayGuard;
import mrtr.RuleInfo;
import mrtr.ToolReplay;
import org.junit.jupiter.api.Test;

/** The package as a Java program uses it: plain Java types, checked exceptions, try-with-resources. */
class JavaApiTest {
  static final String P = "2026-07-28";
  static final String META =
      "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";
  static final String CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
          + "\"arguments\":{\"a\":1},\"_meta\":" + META + "}}";
  static final String ASK =
      "{\"login\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"GitHub user?\","
          + "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}}}";
  static final String ANSWER = "{\"login\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}}}";

  static byte[] secret() {
    byte[] s = new byte[32];
    for (int i = 0; i < s.length; i++) s[i] = (byte) i;
    return s;
  }

  @Test
  void aFaultIsTheSubclassOfItsAreaWithRuleAndCode() {
    MrtrException.Protocol e =
        assertThrows(MrtrException.Protocol.class, () -> Mrtr.classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2}", P));
    assertEquals("jsonrpc-invalid", e.getRule());
    assertEquals(-32600, e.getCode());
    assertEquals(e.getRule(), Mrtr.rule(e));
    assertEquals(e.getCode(), Mrtr.code(e));
    assertEquals(e.getDetail(), Mrtr.detail(e));
    MrtrException.Usage usage = assertThrows(MrtrException.Usage.class, () -> Mrtr.check("[]", P, -1, null));
    assertEquals("usage-invalid-argument", usage.getRule());
    assertNull(usage.getCode());
    assertEquals("max_rounds is out of range: -1", usage.getDetail());
  }

  /**
   * Security review I11: a String that is not valid UTF-16 (an unpaired surrogate) threw an
   * untyped java.nio.charset.MalformedInputException out of UniFFI's string lowering. It is the
   * caller's error: MrtrException.Usage, usage-invalid-argument, through the façade and the objects.
   */
  @Test
  void aStringThatIsNotUtf16IsAUsageError() throws MrtrException {
    for (String bad : List.of("\ud800", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\ud800\"}", "\udc00x", "x\ud800")) {
      MrtrException.Usage usage = assertThrows(MrtrException.Usage.class, () -> Mrtr.classify(bad, P));
      assertEquals("usage-invalid-argument", usage.getRule());
      assertNull(usage.getCode());
      assertTrue(usage.getDetail().startsWith("a string argument is not valid UTF-16 (an unpaired surrogate at index "), usage.getDetail());
      assertEquals("usage-invalid-argument", Mrtr.rule(assertThrows(MrtrException.class, () -> Mrtr.inspect(bad))));
    }
    assertTrue(Mrtr.detail(assertThrows(MrtrException.class, () -> Mrtr.classify("ab\ud800", P))).endsWith("at index 2)"));
    // A pair is a character, not an error.
    assertEquals(MessageKind.REQUEST, Mrtr.classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\ud83d\ude00\"}", P).getKind());
    String settings = ToolSettings.builder().ttlSeconds(300).protocol(P).build().toJson();
    try (KeyRing ring = new KeyRing(1, "xaes-256-gcm", secret())) {
      MrtrException.Usage usage = assertThrows(MrtrException.Usage.class,
          () -> ring.startToolReplay(CALL, settings, CallContext.of("al\ud800ice", 1000).toJson(), null));
      assertEquals("usage-invalid-argument", usage.getRule());
    }
  }

  @Test
  void classifyReadsStringsAndBytesAlike() throws MrtrException {
    String message = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";
    assertEquals(MessageKind.REQUEST, Mrtr.classify(message, P).getKind());
    assertEquals(Mrtr.classify(message, P), Mrtr.classify(message.getBytes(StandardCharsets.UTF_8), P));
    assertEquals("7", Mrtr.classify(message, P).getIdJson());
    byte[] notUtf8 = {'{', (byte) 0xff, '}'};
    assertEquals("jsonrpc-parse-error", assertThrows(MrtrException.Protocol.class, () -> Mrtr.classify(notUtf8, P)).getRule());
  }

  @Test
  void aGuardWrittenAsALambdaRefusesTheSecondUse() throws MrtrException {
    Map<String, Long> used = new ConcurrentHashMap<>();
    ReplayGuard guard = (stateId, expiry) -> used.putIfAbsent(stateId, expiry) == null;
    Binding binding = Mrtr.bindingForRequest(CALL, "alice", false, P);
    try (KeyRing ring = new KeyRing(1, "xaes-256-gcm", secret())) {
      String token = ring.seal(binding, 1000L, 60L, "x".getBytes(StandardCharsets.UTF_8));
      assertEquals("x", new String(ring.open(token, binding, 1001L, guard).getPayload(), StandardCharsets.UTF_8));
      assertEquals(Map.of(Mrtr.inspect(token).getStateId(), 1060L), used);
      MrtrException.State again = assertThrows(MrtrException.State.class, () -> ring.open(token, binding, 1002L, guard));
      assertEquals("state-replayed", again.getRule());
      assertEquals("state-expired", assertThrows(MrtrException.State.class, () -> ring.open(token, binding, 1060L, null)).getRule());
      assertEquals("now is out of range: -1", assertThrows(MrtrException.Usage.class, () -> ring.open(token, binding, -1L, null)).getDetail());
    }
  }

  @Test
  void aClosedObjectRefusesItsMethods() throws MrtrException {
    KeyRing ring = new KeyRing(1, "aes-256-gcm", secret());
    ring.close();
    assertThrows(IllegalStateException.class, () -> ring.seals(1));
  }

  @Test
  void theClientMachineRetriesWithTheExactState() throws MrtrException {
    try (Client client = new Client(P, Mrtr.DEFAULT_MAX_ROUNDS)) {
      long handle = client.send(CALL);
      assertEquals(CALL.length() > 0, client.pollTransmit() != null);
      client.handleResponse(Mrtr.respond(CALL, ASK, "\"s1\"", P));
      ClientEvent.InputRequired asked = assertInstanceOf(ClientEvent.InputRequired.class, client.pollEvent());
      assertEquals(handle, asked.getHandle());
      assertEquals(0, asked.getRound());
      client.answer(handle, ANSWER, "2");
      String retry = client.pollTransmit();
      assertEquals("s1", Mrtr.resume(retry, ASK, P).getRequestState());
      assertEquals("usage-out-of-turn", assertThrows(MrtrException.Usage.class, () -> client.answer(handle, ANSWER, "3")).getRule());
    }
  }

  @Test
  void theBuildersWriteWhatTheCoreReads() throws MrtrException {
    assertEquals("{\"ttl\":60,\"protocol\":\"2026-07-28\",\"pinAnswers\":false,\"maxRounds\":3}",
        ToolSettings.builder().ttlSeconds(60).pinAnswers(false).maxRounds(3).build().toJson());
    assertEquals("{\"subject\":\"a\\\"b\\u000a\",\"now\":5}", CallContext.of("a\"b\n", 5).toJson());
    assertEquals("{\"anonymous\":true,\"now\":5}", CallContext.anonymous(5).toJson());
    assertThrows(IllegalArgumentException.class, () -> CallContext.of("", 5));
    assertThrows(IllegalArgumentException.class, () -> ToolSettings.builder().ttlSeconds(0).build());
    // A subject that needs escaping binds the state to exactly that principal.
    String settings = ToolSettings.builder().build().toJson();
    String odd = "a\"b\n";
    try (KeyRing ring = new KeyRing(1, "xaes-256-gcm", secret())) {
      String asked;
      try (ToolReplay replay = ring.startToolReplay(CALL, settings, CallContext.of(odd, 1000).toJson(), null)) {
        assertNull(replay.ask(Mrtr.questionElicit("GitHub user?", "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}"), "login"));
        asked = replay.inputRequired(ring, null);
      }
      String retry = Mrtr.retry(CALL, asked, ANSWER, "2", P);
      try (ToolReplay replay = ring.startToolReplay(retry, settings, CallContext.of(odd, 1001).toJson(), null)) {
        assertEquals(1, replay.round());
      }
      MrtrException.State other = assertThrows(MrtrException.State.class,
          () -> ring.startToolReplay(retry, settings, CallContext.of("a\"b", 1001).toJson(), null));
      assertEquals("state-wrong-subject", other.getRule());
    }
  }

  @Test
  void aRefusalCarriesItsDataForThePeer() throws MrtrException {
    // The call declares elicitation only: asking for sampling is refused with what it needs.
    String settings = ToolSettings.builder().build().toJson();
    try (KeyRing ring = new KeyRing(1, "xaes-256-gcm", secret());
        ToolReplay replay = ring.startToolReplay(CALL, settings, CallContext.of("alice", 1000).toJson(), null)) {
      assertNull(replay.ask(Mrtr.questionSample("{\"messages\":[],\"maxTokens\":5}"), "s"));
      MrtrException e = assertThrows(MrtrException.class, () -> replay.inputRequired(ring, null));
      assertEquals("request-capability-missing", Mrtr.rule(e));
      assertEquals(-32021, Mrtr.code(e));
      assertTrue(Mrtr.data(e).contains("\"requiredCapabilities\""), Mrtr.data(e));
    }
    assertNull(Mrtr.data(assertThrows(MrtrException.Protocol.class, () -> Mrtr.classify("[]", P))));
  }

  /**
   * Issue #46: a check returns normally when the request passes and throws its refusal, the
   * exception of the rule's area with rule, code and data (Python's check_request raises, Node's
   * checkRequest throws), where it used to return the refusal's JSON or null.
   */
  @Test
  void aCheckReturnsWhenItPassesAndThrowsItsRefusal() throws MrtrException {
    String fields = "{\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\",\"mcp-name\":\"t\"}";
    Mrtr.checkRequest(CALL, fields, "[\"2026-07-28\"]", P); // admitted: nothing to answer
    Mrtr.checkRequest(CALL, null, "[\"2026-07-28\"]", P); // not over HTTP: no fields to compare

    MrtrException.Protocol version = assertThrows(MrtrException.Protocol.class,
        () -> Mrtr.checkRequest(CALL, fields, "[\"2099-01-01\"]", P));
    assertEquals("protocol-version-unsupported", version.getRule());
    assertEquals(-32022, version.getCode());
    assertEquals(version.getRule(), Mrtr.rule(version));
    assertEquals(-32022, Mrtr.code(version));
    assertEquals(version.getDetail(), Mrtr.detail(version));
    assertTrue(version.getData().contains("\"supported\":[\"2099-01-01\"]"), version.getData());
    assertTrue(version.getData().contains("\"requested\":\"2026-07-28\""), version.getData());

    String wrongName = fields.replace("\"t\"}", "\"u\\\"\"}"); // a name that needs escaping: u"
    MrtrException mismatch = assertThrows(MrtrException.class, () -> Mrtr.checkRequest(CALL, wrongName, "[\"2026-07-28\"]", P));
    assertEquals("request-header-mismatch", Mrtr.rule(mismatch));
    assertEquals(-32020, Mrtr.code(mismatch));
    assertEquals("the mcp-name header \"u\\\"\" differs from the body's \"t\"", Mrtr.detail(mismatch));

    String noMeta = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}";
    assertEquals("request-meta-missing",
        assertThrows(MrtrException.Protocol.class, () -> Mrtr.checkRequest(noMeta, null, "[\"2026-07-28\"]", P)).getRule());

    Mrtr.requireCapabilities(CALL, ASK, P); // elicitation was declared
    String sample = "{\"s\":" + Mrtr.questionSample("{\"messages\":[],\"maxTokens\":5}") + "}";
    MrtrException.Protocol missing = assertThrows(MrtrException.Protocol.class, () -> Mrtr.requireCapabilities(CALL, sample, P));
    assertEquals("request-capability-missing", missing.getRule());
    assertEquals(-32021, missing.getCode());
    assertTrue(missing.getData().contains("\"requiredCapabilities\":{\"sampling\":"), missing.getData());
    Mrtr.requireDeclared(CALL, "{\"elicitation\":{}}", P);
    assertEquals("request-capability-missing",
        assertThrows(MrtrException.Protocol.class, () -> Mrtr.requireDeclared(CALL, "{\"roots\":{}}", P)).getRule());
    // A bad argument fails as any call does: an unknown protocol is the core's jsonrpc-invalid.
    assertEquals("jsonrpc-invalid",
        Mrtr.rule(assertThrows(MrtrException.class, () -> Mrtr.checkRequest(CALL, null, "[\"2026-07-28\"]", "no-such-protocol"))));
  }

  /** Issue #46: errorResponse gives the response and its HTTP status as Java values, not their JSON. */
  @Test
  void anErrorResponseIsTheResponseAndItsStatus() throws MrtrException {
    ErrorResponse built = Mrtr.errorResponse("7", "state-expired", "the state expired", null, P);
    assertEquals(400, built.status());
    assertTrue(built.response().startsWith("{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,"), built.response());
    assertTrue(built.response().contains("\"message\":\"the state expired\""), built.response());
    assertTrue(built.response().contains("\"rule\":\"state-expired\""), built.response());
    assertEquals(500, Mrtr.errorResponse("\"a\"", "internal-panic", "a bug", null, P).status());

    // The refusal of a check, answered with its data: what a server sends for it.
    MrtrException refused = assertThrows(MrtrException.class,
        () -> Mrtr.checkRequest(CALL, null, "[\"2099-01-01\"]", P));
    ErrorResponse answer = Mrtr.errorResponse("1", refused, P);
    assertEquals(400, answer.status());
    assertTrue(answer.response().contains("\"code\":-32022"), answer.response());
    assertTrue(answer.response().contains("\"supported\":[\"2099-01-01\"]"), answer.response());
    assertEquals(new ErrorResponse(answer.response(), 400), answer);
    assertEquals("usage-invalid-argument",
        assertThrows(MrtrException.Usage.class, () -> Mrtr.errorResponse("1", "no-such-rule", "", null, P)).getRule());
  }

  @Test
  void theCatalogueNamesEveryRuleWithItsArea() {
    RuleInfo replayed = Mrtr.rules().stream().filter(r -> r.getName().equals("state-replayed")).findFirst().orElseThrow();
    assertEquals(ErrorArea.STATE, replayed.getArea());
    assertTrue(replayed.getNumber() > 0);
    assertEquals(P, Mrtr.protocols().get(0));
  }

  @Test
  void everyFunctionOfTheBindingIsAFunctionOfMrtr() {
    // classifyBytes is Mrtr.classify(byte[]); the test-only exports stay out of the façade, and
    // so do UniFFI's plumbing (uniffi*) and Kotlin's `use` (try-with-resources is Java's).
    List<String> missing = Arrays.stream(Mrtr_uniffiKt.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers()))
        .filter(m -> !m.getName().matches("testOnly.*|uniffi.*|use|.*\\$.*"))
        .filter(m -> !hasMrtrFunction(m.getName().equals("classifyBytes") ? "classify" : m.getName(), m))
        .map(Method::getName)
        .toList();
    assertEquals(List.of(), missing);
  }

  private static boolean hasMrtrFunction(String name, Method kotlin) {
    return Arrays.stream(Mrtr.class.getMethods())
        .anyMatch(m -> m.getName().equals(name) && Modifier.isStatic(m.getModifiers())
            && Arrays.equals(m.getParameterTypes(), kotlin.getParameterTypes()));
  }
}
