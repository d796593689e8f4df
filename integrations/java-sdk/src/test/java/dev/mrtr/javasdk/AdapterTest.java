package dev.mrtr.javasdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mrtr.Mrtr;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.util.List;
import java.util.Map;
import mrtr.KeyRing;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The adapter between the SDK's server and a transport of its own, without HTTP: two instances, one key. */
class AdapterTest {
  static final McpJsonMapper JSON = McpJsonDefaults.getMapper();
  static final Map<String, Object> NAME = Map.of("type", "object", "properties", Map.of("name", Map.of("type", "string")));
  static final byte[] KEY = new byte[32];

  /** The SDK's transport as the adapter sees it: what the handler answers. */
  static final class Fake implements McpStatelessServerTransport {
    McpStatelessServerHandler handler;

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
      this.handler = handler;
    }

    @Override
    public Mono<Void> closeGracefully() {
      return Mono.empty();
    }

    JSONRPCResponse send(String request) throws Exception {
      return handler.handleRequest(McpTransportContext.EMPTY, (JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(JSON, request)).block();
    }
  }

  /** A server on the SDK with one MRTR tool (greet) and one of its own (echo). */
  static Fake server() {
    Fake fake = new Fake();
    MrtrStatelessTransport transport = new MrtrStatelessTransport(fake, new KeyRing(1, "xaes-256-gcm", KEY), JSON);
    McpServer.sync(transport)
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        .tools(transport.tool(McpSchema.Tool.builder("greet", Map.of("type", "object")).build(), (args, ctx) -> {
          Object name = ((Map<?, ?>) ctx.elicit("Name?", NAME).get("content")).get("name");
          return Map.of("content", List.of(Map.of("type", "text", "text", "Hello, " + name)));
        }))
        .build();
    return fake;
  }

  static String request(int id, String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
  }

  static String meta(String capabilities) {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":" + capabilities + "}";
  }

  /** The result as JSON (the SDK's own answers are its records). */
  static Map<String, Object> result(JSONRPCResponse response) {
    assertNull(response.error(), () -> "an error: " + response.error());
    return JSON.convertValue(response.result(), MrtrContext.MAP);
  }

  @Test
  void aCallAskedByOneInstanceIsFinishedByAnother() throws Exception {
    String call = request(1, "tools/call", "{\"name\":\"greet\",\"arguments\":{}," + meta("{\"elicitation\":{}}") + "}");
    JSONRPCResponse asked = server().send(call);
    assertEquals("input_required", result(asked).get("resultType"));
    assertNotNull(result(asked).get("requestState"));
    String key = ((Map<?, ?>) result(asked).get("inputRequests")).keySet().iterator().next().toString();
    String retry = Mrtr.retry(call, JSON.writeValueAsString(asked),
        "{\"" + key + "\":{\"action\":\"accept\",\"content\":{\"name\":\"octocat\"}}}", "2", MrtrStatelessTransport.PROTOCOL);
    Map<String, Object> done = result(server().send(retry)); // another instance, the same key
    assertEquals("complete", done.get("resultType"));
    assertEquals("Hello, octocat", ((Map<?, ?>) ((List<?>) done.get("content")).get(0)).get("text"));
  }

  @Test
  void aQuestionTheRequestCannotAnswerIsRefused() throws Exception {
    JSONRPCResponse refused = server().send(request(1, "tools/call", "{\"name\":\"greet\",\"arguments\":{}," + meta("{}") + "}"));
    assertEquals(-32021, refused.error().code());
    assertTrue(JSON.writeValueAsString(refused.error().data()).contains("requiredCapabilities"));
  }

  @Test
  void theSdkListsTheToolsAndMrtrCompletesItsResult() throws Exception {
    Map<String, Object> listed = result(server().send(request(1, "tools/list", "{" + meta("{}") + "}")));
    assertEquals("complete", listed.get("resultType"));
    assertTrue(listed.containsKey("ttlMs") && listed.containsKey("cacheScope"));
    assertTrue(JSON.writeValueAsString(listed.get("tools")).contains("\"greet\""));
    Map<String, Object> discovered = result(server().send(request(2, "server/discover", "{" + meta("{}") + "}")));
    assertEquals(List.of("2026-07-28"), discovered.get("supportedVersions"));
  }

  @Test
  void anOlderProtocolGoesToTheSdkUntouched() throws Exception {
    Map<String, Object> listed = result(server().send(request(1, "tools/list", "{}")));
    assertFalse(listed.containsKey("resultType"));
    Map<String, Object> called = result(server().send(request(2, "tools/call", "{\"name\":\"greet\",\"arguments\":{}}")));
    assertEquals(true, called.get("isError"));
  }
}
