package dev.mrtr.example;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mrtr.CallContext;
import dev.mrtr.ErrorResponse;
import dev.mrtr.Mrtr;
import dev.mrtr.ToolSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import mrtr.KeyRing;
import mrtr.MrtrException;
import mrtr.ReplayGuard;

/**
 * A stateless MRTR server in Java: the peers' scenario tools ({@link Tools}), written await-style,
 * served over the JDK's own HTTP server on 127.0.0.1 to both generations of clients.
 *
 * <ul>
 *   <li>{@code 2026-07-28}: every POST stands alone. {@code checkRequest} checks it, the tool is
 *       run over sealed rounds ({@link Mrtr#runTool}, under the replay guard), and
 *       the answer is {@code input_required} with a sealed {@code requestState}, the result
 *       completed, or the core's error response. No call is held in memory: any instance holding
 *       the same key finishes a call another began.
 *   <li>{@code 2025-11-25}: after {@code initialize}, a call is a {@link BridgedCall} (the core's
 *       legacy bridge): the tool's questions go on the call's POST stream as server requests, the
 *       client POSTs each answer ({@code 202}), and the tool is replayed from them. The call lives
 *       in this process, on its open stream.
 * </ul>
 *
 * <p>{@code reserve} sheds load on {@code 2026-07-28} (a sealed {@code requestState} and no
 * {@code inputRequests}, with {@code resumeRound}/{@code respondRound}); {@code sign_in} asks a
 * URL-mode elicitation; an ask the request did not declare is refused with -32021
 * ({@code data.requiredCapabilities}). The protocol of a request is its {@code MCP-Protocol-Version}
 * header ({@code initialize} starts a {@code 2025-11-25} session).
 *
 * <pre>
 * java -jar target/mrtr-example-server.jar PORT [--key HEX] [--guard memory|off|URL] [--serve-guard] [--log]
 * </pre>
 *
 * {@code --key} (or the environment variable {@code MRTR_KEY}): the 32-byte sealing key as 64 hex
 * digits, the same in every instance (default: a random key, this instance alone opens its states).
 * {@code --guard}: the replay guard, in this process's memory (default), none, or another
 * instance's over HTTP (its {@code /guard}, served with {@code --serve-guard}). {@code --log}: one
 * line per {@code 2026-07-28} request on stderr (method, name, id, HTTP status).
 */
public final class McpServer {
  static final String MRTR = "2026-07-28";
  static final String LEGACY = "2025-11-25";
  static final String VERSION = "0.1.0";

  private final KeyRing ring;
  private final ReplayGuard guard;
  private final Guards.Memory served;
  private final ToolSettings settings = ToolSettings.builder().ttlSeconds(300).protocol(MRTR).build();
  private final List<BridgedCall> calls = new CopyOnWriteArrayList<>(); // the open 2025-11-25 calls
  private boolean log; // --log: one line per 2026-07-28 request on stderr

  McpServer(KeyRing ring, ReplayGuard guard, Guards.Memory served) {
    this.ring = ring;
    this.guard = guard;
    this.served = served;
  }

  // ---- what the server says -------------------------------------------------------------------

  static JsonObject info() {
    JsonObject info = Tools.obj("name", "mrtr-java-peer");
    info.addProperty("version", VERSION);
    return info;
  }

  static JsonObject capabilities() {
    JsonObject caps = new JsonObject();
    for (String c : new String[] {"tools", "prompts", "resources"}) caps.add(c, new JsonObject());
    return caps;
  }

  /** An answer: an HTTP status and a JSON body (null: none). */
  record Reply(int status, String json) {}

  static final class NotFound extends Exception {
    private static final long serialVersionUID = 1L;
    final boolean method;

    NotFound(String message, boolean method) {
      super(message, null, false, false);
      this.method = method;
    }
  }

  /**
   * The core's error response to {@code id} for the failure {@code e} (its rule, detail and data:
   * -32021's {@code requiredCapabilities}, -32022's {@code supported}), with its HTTP status.
   */
  static Reply error(JsonElement id, MrtrException e, String protocol) throws MrtrException {
    ErrorResponse built = Mrtr.errorResponse(id == null ? "null" : id.toString(), e, protocol);
    return new Reply(built.status(), built.response());
  }

  static Reply jsonRpcError(JsonElement id, int code, String message, int status) {
    JsonObject error = new JsonObject();
    error.addProperty("code", code);
    error.addProperty("message", message);
    JsonObject response = Tools.obj("jsonrpc", "2.0");
    response.add("id", id == null ? JsonNull.INSTANCE : id);
    response.add("error", error);
    return new Reply(status, response.toString());
  }

  /** The answer to a request that is no multi-round call. */
  static Reply listing(JsonObject request, String text, String protocol) throws MrtrException, NotFound {
    String method = request.get("method").getAsString();
    JsonObject result;
    if (method.equals("server/discover")) {
      JsonObject declared = new JsonObject();
      declared.add("capabilities", capabilities());
      declared.add("serverInfo", info());
      return new Reply(200, Mrtr.discover(text, declared.toString(), protocol));
    } else if (method.equals("ping")) {
      result = new JsonObject();
    } else {
      result = Tools.listing(method);
      if (result == null) throw new NotFound("Method not found: " + method, true);
    }
    return new Reply(200, Mrtr.complete(text, result.toString(), protocol));
  }

  // ---- 2026-07-28: every request stands alone ------------------------------------------------

  /**
   * {@code tool} as the package runs it: the arguments and the context in JSON text, read into Gson's
   * values for the scenario tools, and the result written back.
   */
  static dev.mrtr.Tool<RuntimeException> packaged(Tools.Tool tool, JsonObject request) {
    return (args, ctx) -> tool.run(JsonParser.parseString(args).getAsJsonObject(), new Ctx(ctx, request)).toString();
  }

  /**
   * The tool run on one request ({@code Mrtr.runTool}): {@code input_required} sealing a round, or
   * its final result. A refusal is thrown (even one the tool caught at its ask): an ask the request
   * did not declare it can answer is -32021 with what it needs (data.requiredCapabilities), which
   * the error response carries to the client.
   */
  Reply runTool(Tools.Tool tool, JsonObject request, String text, long now) throws MrtrException {
    return new Reply(200, Mrtr.runTool(packaged(tool, request), text, ring, settings, CallContext.anonymous(now), guard));
  }

  /**
   * {@code reserve} on 2026-07-28, load shedding (SEP-2322 Use Case 2): the first request answers
   * {@code input_required} with a sealed {@code requestState} and no {@code inputRequests} (what this
   * instance did so far); the retry, which any instance may serve, picks up from that state.
   */
  Reply shed(JsonObject request, String text, long now) throws MrtrException {
    String call = CallContext.anonymous(now).toJson();
    String table = Tools.str(Tools.member(Tools.member(request, "params"), "arguments"), "table");
    JsonObject round = JsonParser.parseString(ring.resumeRound(text, "{}", settings.toJson(), call, guard)).getAsJsonObject();
    if (round.get("round").getAsInt() == 0) {
      JsonObject data = Tools.obj("table", table);
      data.addProperty("held", true);
      return new Reply(200, ring.respondRound(text, round.toString(), "{}", data.toString(), settings.toJson(), call));
    }
    String held = Tools.str(Tools.member(round, "data"), "table");
    return new Reply(200, Mrtr.complete(text, Tools.text("table " + held + " reserved").toString(), MRTR));
  }

  Reply stateless(JsonObject request, String text, Map<String, String> headers) throws MrtrException {
    JsonElement id = request.get("id");
    try {
      JsonObject fields = new JsonObject();
      headers.forEach(fields::addProperty);
      Mrtr.checkRequest(text, fields.toString(), "[\"" + MRTR + "\"]", MRTR); // throws its refusal
      String method = request.get("method").getAsString();
      long now = System.currentTimeMillis() / 1000;
      JsonObject params = Tools.member(request, "params");
      if (method.equals("tools/call") && "reserve".equals(Tools.str(params, "name"))) return shed(request, text, now);
      if (List.of("tools/call", "prompts/get", "resources/read").contains(method)) {
        Tools.Tool tool = Tools.handler(request);
        if (tool == null) {
          String what = params == null ? "" : Tools.str(params, params.has("name") ? "name" : "uri");
          throw new NotFound("nothing serves " + method + " " + what, false);
        }
        return runTool(tool, request, text, now);
      }
      return listing(request, text, MRTR);
    } catch (MrtrException e) {
      return error(id, e, MRTR);
    } catch (NotFound e) {
      return e.method ? jsonRpcError(id, -32601, e.getMessage(), 404) : jsonRpcError(id, -32602, e.getMessage(), 400);
    }
  }

  // ---- 2025-11-25: the session's start, a call held on its stream, or an answer to one ----------

  void legacy(HttpExchange http, JsonObject message, String text) throws IOException, MrtrException {
    JsonElement id = message.get("id");
    if (!message.has("method")) { // an answer to a server request of an open call
      BridgedCall call = null;
      for (BridgedCall open : calls) {
        List<String> pending = open.pending();
        if (id != null && (pending.contains(id.toString()) || id.isJsonPrimitive() && pending.contains(id.getAsString()))) {
          call = open;
          break;
        }
      }
      if (call == null) {
        send(http, new Reply(202, null)); // nothing waits for it (a call that ended)
        return;
      }
      try {
        call.deliver(text);
      } catch (MrtrException e) {
        send(http, error(id, e, LEGACY));
        return;
      }
      send(http, new Reply(202, null));
      return;
    }
    if (id == null) {
      send(http, new Reply(202, null)); // notifications
      return;
    }
    if (message.get("method").getAsString().equals("initialize")) {
      JsonObject result = Tools.obj("protocolVersion", LEGACY);
      result.add("capabilities", capabilities());
      result.add("serverInfo", info());
      JsonObject response = Tools.obj("jsonrpc", "2.0");
      response.add("id", id);
      response.add("result", result);
      send(http, new Reply(200, response.toString()));
      return;
    }
    Tools.Tool tool = Tools.handler(message);
    if (tool == null) {
      try {
        send(http, listing(message, text, LEGACY));
      } catch (NotFound e) {
        send(http, jsonRpcError(id, -32601, e.getMessage(), 404));
      }
      return;
    }
    BridgedCall opened;
    try {
      opened = new BridgedCall(tool, message);
    } catch (MrtrException e) { // a request the bridge cannot carry
      send(http, error(id, e, LEGACY));
      return;
    }
    try (BridgedCall call = opened) {
      calls.add(call);
      http.getResponseHeaders().set("Content-Type", "text/event-stream");
      http.getResponseHeaders().set("Cache-Control", "no-store");
      http.sendResponseHeaders(200, 0);
      try (OutputStream out = http.getResponseBody()) {
        call.stream(out);
      } finally {
        calls.remove(call);
      }
    }
  }

  // ---- HTTP -----------------------------------------------------------------------------------

  static void send(HttpExchange http, Reply reply) throws IOException {
    if (reply.json() == null) {
      http.sendResponseHeaders(reply.status(), -1);
      http.close();
      return;
    }
    byte[] body = reply.json().getBytes(StandardCharsets.UTF_8);
    http.getResponseHeaders().set("Content-Type", "application/json");
    http.sendResponseHeaders(reply.status(), body.length);
    try (OutputStream out = http.getResponseBody()) {
      out.write(body);
    }
  }

  void endpoint(HttpExchange http) throws IOException {
    try {
      if (!http.getRequestMethod().equals("POST")) {
        http.getResponseHeaders().set("Allow", "POST");
        send(http, new Reply(405, null));
        return;
      }
      byte[] body = http.getRequestBody().readAllBytes();
      try {
        Mrtr.classify(body, LEGACY);
      } catch (MrtrException e) {
        send(http, error(null, e, LEGACY));
        return;
      }
      String text = new String(body, StandardCharsets.UTF_8);
      JsonElement parsed = JsonParser.parseString(text);
      if (!parsed.isJsonObject()) {
        send(http, jsonRpcError(null, -32600, "one JSON-RPC message per POST", 400));
        return;
      }
      JsonObject message = parsed.getAsJsonObject();
      if (MRTR.equals(http.getRequestHeaders().getFirst("MCP-Protocol-Version"))) {
        if (!message.has("method") || !message.has("id")) {
          send(http, new Reply(202, null));
          return;
        }
        Map<String, String> headers = new java.util.TreeMap<>();
        http.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), String.join(", ", values)));
        Reply reply = stateless(message, text, headers);
        if (log) {
          JsonObject params = Tools.member(message, "params");
          System.err.println(message.get("method").getAsString() + " " + (params != null && params.has("name") ? Tools.str(params, "name") : "")
              + " id=" + message.get("id") + " -> " + reply.status());
        }
        send(http, reply);
        return;
      }
      legacy(http, message, text);
    } catch (IOException e) {
      throw e; // the client went away
    } catch (Exception | Error e) { // a bug here or in a tool: -32603, and the trace on stderr
      e.printStackTrace();
      try {
        send(http, jsonRpcError(null, -32603, "internal error: " + e, 500));
      } catch (IOException | RuntimeException ignored) {
        // the response had begun
      }
    } finally {
      http.close();
    }
  }

  /** {@code --serve-guard}: this instance's memory guard, for the others ({@link Guards.Remote}). */
  void guardEndpoint(HttpExchange http) throws IOException {
    try {
      JsonObject use = JsonParser.parseString(new String(http.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
      JsonObject answer = new JsonObject();
      answer.addProperty("firstUse", served.firstUse(use.get("stateId").getAsString(), use.get("expiry").getAsLong()));
      send(http, new Reply(200, answer.toString()));
    } catch (RuntimeException e) {
      send(http, jsonRpcError(null, -32600, "a guard request is {stateId, expiry}", 400));
    } finally {
      http.close();
    }
  }

  // ---- main -----------------------------------------------------------------------------------

  static void usage(String why) {
    System.err.println(why);
    System.err.println("usage: java -jar mrtr-example-server.jar PORT [--key HEX] [--guard memory|off|URL] [--serve-guard] [--log]");
    System.exit(2);
  }

  public static void main(String[] args) throws Exception {
    Integer port = null;
    String key = System.getenv("MRTR_KEY");
    String guardArg = "memory";
    boolean serveGuard = false;
    boolean log = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--key" -> key = i + 1 < args.length ? args[++i] : null;
        case "--guard" -> guardArg = i + 1 < args.length ? args[++i] : "";
        case "--serve-guard" -> serveGuard = true;
        case "--log" -> log = true;
        default -> {
          try {
            port = Integer.parseInt(args[i]);
          } catch (NumberFormatException e) {
            usage("not a port: " + args[i]);
          }
        }
      }
    }
    if (port == null) usage("no port");
    byte[] secret = new byte[32];
    if (key == null || key.isEmpty()) {
      new SecureRandom().nextBytes(secret);
    } else {
      try {
        secret = HexFormat.of().parseHex(key);
      } catch (IllegalArgumentException e) {
        usage("the key is not hex: " + e.getMessage());
      }
      if (secret.length != 32) usage("the key is 32 bytes (64 hex digits), not " + secret.length);
    }
    Guards.Memory memory = new Guards.Memory();
    ReplayGuard guard = switch (guardArg) {
      case "memory" -> memory;
      case "off" -> null;
      default -> guardArg.startsWith("http://") ? new Guards.Remote(guardArg) : null;
    };
    if (guard == null && !guardArg.equals("off")) usage("--guard is memory, off or an http:// URL");

    McpServer server = new McpServer(new KeyRing(1, "xaes-256-gcm", secret), guard, memory);
    server.log = log;
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
    http.createContext("/mcp", server::endpoint);
    if (serveGuard) http.createContext("/guard", server::guardEndpoint);
    http.setExecutor(Executors.newCachedThreadPool()); // a 2025-11-25 call holds its thread while its stream is open
    http.start();
    System.err.println("mrtr Java server on http://127.0.0.1:" + port + "/mcp (replay guard: " + guardArg + ")");
  }
}
