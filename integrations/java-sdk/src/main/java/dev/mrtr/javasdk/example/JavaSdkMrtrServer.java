package dev.mrtr.javasdk.example;

import dev.mrtr.javasdk.MrtrContext;
import dev.mrtr.javasdk.MrtrShed;
import dev.mrtr.javasdk.MrtrStatelessTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mrtr.KeyRing;
import mrtr.MrtrException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A Java SDK server (io.modelcontextprotocol.sdk:mcp 2.2.0, its stateless servlet transport on Jetty
 * 12) that answers MCP Multi Round-Trip Requests ({@code 2026-07-28}) through
 * {@link MrtrStatelessTransport}: the peers' scenario tools (as peers/mrtr_server.py serves them)
 * written await-style, the {@code review} prompt and the {@code notes://} resource, beside an
 * ordinary SDK tool ({@code echo}). The SDK answers {@code tools/list}, {@code prompts/list} and
 * {@code echo} itself.
 *
 * <pre>
 * MRTR_KEY=64-hex-digits java -jar mrtr-java-sdk.jar PORT     # http://127.0.0.1:PORT/mcp
 * </pre>
 *
 * The sealing key comes from {@code MRTR_KEY} (32 bytes as hex; the same in every instance, so any
 * instance finishes a call another began), or is random (this instance alone opens its states).
 */
public final class JavaSdkMrtrServer {
  static final String SIGN_IN = "https://example.com/sign-in";

  private JavaSdkMrtrServer() {}

  static Map<String, Object> text(String value) {
    return Map.of("content", List.of(Map.of("type", "text", "text", value)));
  }

  static Map<String, Object> form(String key) {
    return Map.of("type", "object", "properties", Map.of(key, Map.of("type", "string")), "required", List.of(key));
  }

  static McpSchema.Tool tool(String name, String description, String... arguments) {
    Map<String, Object> properties = new LinkedHashMap<>();
    for (String argument : arguments) properties.put(argument, Map.of("type", "string"));
    return McpSchema.Tool.builder(name, Map.of("type", "object", "properties", properties)).description(description).build();
  }

  /** One string, asked by form elicitation. */
  static String field(MrtrContext ctx, String message, String key) throws MrtrException {
    Object content = ctx.elicit(message, form(key)).get("content");
    Object value = content instanceof Map<?, ?> c ? c.get(key) : null;
    return value == null ? "" : value.toString();
  }

  static Map<String, Object> getWeather(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    return text(args.get("location") + ": 22 degrees " + field(ctx, "Which units?", "units"));
  }

  static Map<String, Object> bookTrip(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    Object destination = args.get("destination");
    String date = field(ctx, "When do you fly to " + destination + "?", "date");
    String seat = field(ctx, "Which seat on " + date + "?", "seat"); // asked once the date is known: a second round
    return text(destination + " on " + date + ", seat " + seat);
  }

  static Map<String, Object> summarize(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    Map<String, Object> prompt = Map.of("role", "user", "content", Map.of("type", "text", "text", "Summarise: " + args.get("text")));
    Object content = ctx.sample(Map.of("messages", List.of(prompt), "maxTokens", 50)).get("content");
    Object summary = content instanceof Map<?, ?> c ? c.get("text") : null;
    return text("summary: " + (summary == null ? "" : summary));
  }

  static Map<String, Object> listRoots(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    List<String> uris = new ArrayList<>();
    if (ctx.roots().get("roots") instanceof List<?> roots) {
      for (Object root : roots) uris.add(root instanceof Map<?, ?> r ? String.valueOf(r.get("uri")) : "null");
    }
    return text(String.join(", ", uris));
  }

  /**
   * Load shedding (SEP-2322, Use Case 2): the first request answers input_required with a sealed
   * requestState and no inputRequests; the retry, on any instance, goes on from the held data.
   */
  static Map<String, Object> reserve(Map<String, Object> args, MrtrShed shed) {
    Map<String, Object> held = shed.held();
    if (held == null) return shed.later(Map.of("table", String.valueOf(args.get("table")), "held", true));
    return text("table " + held.get("table") + " reserved");
  }

  /** A URL-mode elicitation (2026-07-28: no elicitationId); the answer is an accept without content. */
  static Map<String, Object> signIn(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    Map<String, Object> ask = Map.of("method", "elicitation/create",
        "params", Map.of("mode", "url", "message", "Sign in", "url", SIGN_IN));
    Object action = ctx.ask(ask).get("action");
    return text("accept".equals(action) ? "signed in" : "not signed in: " + action);
  }

  static Map<String, Object> review(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    Object pr = args.get("pr");
    String focus = field(ctx, "What should the review of " + pr + " focus on?", "focus");
    Map<String, Object> message = Map.of("role", "user", "content", Map.of("type", "text", "text", "Review " + pr + ": " + focus));
    return Map.of("messages", List.of(message));
  }

  static Map<String, Object> notes(Map<String, Object> args, MrtrContext ctx) throws MrtrException {
    String uri = String.valueOf(ctx.params().get("uri"));
    String day = uri.startsWith("notes://") ? uri.substring("notes://".length()) : uri;
    String topic = field(ctx, "Notes of " + day + " on which topic?", "topic");
    return Map.of("contents", List.of(Map.of("uri", uri, "mimeType", "text/plain", "text", "notes on " + topic)));
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: java -jar mrtr-java-sdk.jar PORT   (MRTR_KEY: the sealing key, 64 hex digits)");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    String key = System.getenv("MRTR_KEY");
    byte[] secret = new byte[32];
    if (key == null || key.isEmpty()) new SecureRandom().nextBytes(secret);
    else secret = HexFormat.of().parseHex(key);

    McpJsonMapper json = McpJsonDefaults.getMapper();
    HttpServletStatelessServerTransport servlet = HttpServletStatelessServerTransport.builder()
        .jsonMapper(json)
        .messageEndpoint("/mcp")
        .build();
    KeyRing ring = new KeyRing(1, "xaes-256-gcm", secret);
    MrtrStatelessTransport transport = new MrtrStatelessTransport(servlet, ring, json)
        .serverInfo("mrtr-java-sdk-peer", "0.1.0");
    transport.resource("notes://", JavaSdkMrtrServer::notes);

    // An ordinary SDK tool, answered by the SDK (completed through mrtr on 2026-07-28).
    SyncToolSpecification echo = SyncToolSpecification.builder()
        .tool(tool("echo", "the SDK's own tool: says its text back", "text"))
        .callHandler((context, request) -> McpSchema.CallToolResult.builder()
            .addTextContent(String.valueOf(request.arguments() == null ? null : request.arguments().get("text")))
            .build())
        .build();
    McpSchema.Prompt review = McpSchema.Prompt.builder("review").description("asks first")
        .arguments(List.of(McpSchema.PromptArgument.builder("pr").description("the pull request").required(true).build()))
        .build();

    McpStatelessSyncServer mcp = McpServer.sync(transport)
        .serverInfo("mrtr-java-sdk-peer", "0.1.0")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).prompts(false).resources(false, false).build())
        .tools(
            transport.tool(tool("get_weather", "one round", "location"), JavaSdkMrtrServer::getWeather),
            transport.tool(tool("book_trip", "two rounds", "destination"), JavaSdkMrtrServer::bookTrip),
            transport.tool(tool("summarize", "sampling", "text"), JavaSdkMrtrServer::summarize),
            transport.tool(tool("list_roots", "roots"), JavaSdkMrtrServer::listRoots),
            transport.tool(tool("sign_in", "URL elicitation"), JavaSdkMrtrServer::signIn),
            transport.sheddingTool(tool("reserve", "load shedding", "table"), JavaSdkMrtrServer::reserve),
            echo)
        .prompts(transport.prompt(review, JavaSdkMrtrServer::review))
        .build();

    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    ServletHolder holder = new ServletHolder(transport.servlet());
    holder.setAsyncSupported(true);
    context.addServlet(holder, "/*");
    jetty.setHandler(context);
    jetty.setStopAtShutdown(true);
    Runtime.getRuntime().addShutdownHook(new Thread(mcp::closeGracefully));
    jetty.start();
    jetty.join();
  }
}
