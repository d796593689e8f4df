// Quickstart: an MCP server with one await-style tool, over the JDK's own HTTP server.
//
// `greet` asks the user's name with `replay.ask(...)`. The first request is
// answered `input_required`; the client's retry carries the answer, the tool is
// replayed from the top, the ask returns it, and the tool completes. The server
// keeps nothing between the two requests: the round is sealed into
// `requestState`, so any instance holding the same key could answer the retry.
//
//   java -cp "$CLASSPATH" Server.java 8000      (POST JSON-RPC to http://127.0.0.1:8000/mcp)
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mrtr.CallContext;
import dev.mrtr.ErrorResponse;
import dev.mrtr.Mrtr;
import dev.mrtr.ToolSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mrtr.Classified;
import mrtr.KeyRing;
import mrtr.MessageKind;
import mrtr.MrtrException;
import mrtr.ToolReplay;

public class Server {
  static final String PROTOCOL = "2026-07-28";
  static final String SUPPORTED = "[\"2026-07-28\"]";
  static final String SETTINGS = ToolSettings.builder().ttlSeconds(300).protocol(PROTOCOL).build().toJson();
  static final String NAME = """
      {"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}""";
  static final String TOOLS = """
      {"tools":[{"name":"greet","description":"Greets you by name","inputSchema":{"type":"object"}}]}""";
  static final String SERVER = """
      {"capabilities":{"tools":{}},"serverInfo":{"name":"quickstart","version":"1.0.0"}}""";
  // The answer, as the core hands it over: {"action":"accept","content":{"name":"Ada"}}.
  // Messages are JSON text in mrtr: in your server, read them with your JSON library.
  static final Pattern GIVEN_NAME = Pattern.compile("\"content\":\\{\"name\":\"((?:[^\"\\\\]|\\\\.)*)\"\\}");

  /** The tool, replayed from the top on every request of the call. */
  static String greet(ToolReplay replay, KeyRing ring) throws MrtrException {
    String answer = replay.ask(Mrtr.questionElicit("What is your name?", NAME), "name");
    if (answer == null) return replay.inputRequired(ring, null); // the first round ends here: input_required
    Matcher given = GIVEN_NAME.matcher(answer);
    String name = answer.contains("\"action\":\"accept\"") && given.find() ? given.group(1) : "stranger"; // still JSON-escaped: it goes back into JSON
    return replay.complete("{\"content\":[{\"type\":\"text\",\"text\":\"Hello, " + name + "!\"}]}");
  }

  /** An answer: the HTTP status and the JSON-RPC response (null: none, as for a notification). */
  record Reply(int status, String json) {}

  /** One POST's body and header fields in; the HTTP status and the response out. */
  static Reply handle(byte[] body, Headers headers, KeyRing ring) throws MrtrException {
    String id = "null";
    try {
      Classified message = Mrtr.classify(body, PROTOCOL); // one JSON-RPC message, or its refusal
      if (message.getKind() != MessageKind.REQUEST) return new Reply(202, null); // a notification: nothing to answer
      id = message.getIdJson();
      String request = new String(body, StandardCharsets.UTF_8), method = message.getMethod();
      Mrtr.checkRequest(request, fields(headers), SUPPORTED, PROTOCOL); // _meta, header fields, version
      // The check held the Mcp-Name header to the body's params.name: the tool, read without parsing the body.
      String tool = headers.getFirst("Mcp-Name");
      if (method.equals("tools/call") && "greet".equals(tool)) {
        // No authentication here, so the sealed rounds belong to nobody, by explicit choice.
        String call = CallContext.anonymous(System.currentTimeMillis() / 1000).toJson();
        try (ToolReplay replay = ring.startToolReplay(request, SETTINGS, call, null)) {
          return new Reply(200, greet(replay, ring));
        }
      }
      if (method.equals("tools/list")) return new Reply(200, Mrtr.complete(request, TOOLS, PROTOCOL));
      if (method.equals("server/discover")) return new Reply(200, Mrtr.discover(request, SERVER, PROTOCOL)); // what `mrtr bridge` asks first
      String error = "{\"code\":-32601,\"message\":" + quote("no " + method + " " + (tool == null ? "" : tool) + " here") + "}";
      return new Reply(404, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":" + error + "}");
    } catch (MrtrException e) { // a refusal: the error response and its HTTP status
      ErrorResponse error = Mrtr.errorResponse(id, e, PROTOCOL);
      return new Reply(error.status(), error.response());
    }
  }

  /** The header fields as the JSON object `checkRequest` reads. */
  static String fields(Headers headers) {
    StringJoiner json = new StringJoiner(",", "{", "}");
    headers.forEach((name, values) -> json.add(quote(name) + ":" + quote(String.join(", ", values))));
    return json.toString();
  }

  /** {@code text} as a JSON string. */
  static String quote(String text) {
    StringBuilder json = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') json.append('\\').append(c);
      else if (c < 0x20) json.append(String.format("\\u%04x", (int) c));
      else json.append(c);
    }
    return json.append('"').toString();
  }

  static void serve(HttpExchange http, KeyRing ring) throws IOException, MrtrException {
    try (http) {
      if (!http.getRequestMethod().equals("POST")) {
        http.sendResponseHeaders(405, -1);
        return;
      }
      Reply reply = handle(http.getRequestBody().readAllBytes(), http.getRequestHeaders(), ring);
      if (reply.json() == null) {
        http.sendResponseHeaders(reply.status(), -1);
        return;
      }
      byte[] json = reply.json().getBytes(StandardCharsets.UTF_8);
      http.getResponseHeaders().set("Content-Type", "application/json");
      http.sendResponseHeaders(reply.status(), json.length);
      http.getResponseBody().write(json);
    }
  }

  public static void main(String[] args) throws IOException, MrtrException {
    // The sealing key: 32 random bytes, the same on every instance (from your secrets store).
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    KeyRing ring = new KeyRing(1, "xaes-256-gcm", secret); // lives as long as the server
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8000;
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    server.createContext("/mcp", http -> {
      try {
        serve(http, ring);
      } catch (MrtrException e) { // errorResponse itself refused: a bug, here or in mrtr
        throw new IOException(e);
      }
    });
    server.start();
    System.out.println("listening on http://127.0.0.1:" + server.getAddress().getPort() + "/mcp");
  }
}
