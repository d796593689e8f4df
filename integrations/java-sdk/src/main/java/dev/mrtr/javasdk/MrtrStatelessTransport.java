package dev.mrtr.javasdk;

import dev.mrtr.CallContext;
import dev.mrtr.ErrorResponse;
import dev.mrtr.Mrtr;
import dev.mrtr.Tool;
import dev.mrtr.ToolSettings;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncPromptSpecification;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import mrtr.KeyRing;
import mrtr.MrtrException;
import mrtr.ReplayGuard;
import reactor.core.publisher.Mono;

/**
 * A Java SDK stateless server transport that answers MCP Multi Round-Trip Requests
 * ({@code 2026-07-28}) through mrtr. It wraps the SDK's own transport (for example
 * {@code HttpServletStatelessServerTransport}) and is passed to {@code McpServer.sync(…)} in its
 * place: the SDK hands it its request handler ({@link #setMcpHandler}), and it installs on the real
 * transport a handler of its own, which
 *
 * <ul>
 *   <li>answers a {@code 2026-07-28} {@code tools/call}, {@code prompts/get} or
 *       {@code resources/read} of an MRTR tool, prompt or resource ({@link #tool}, {@link #prompt},
 *       {@link #resource}) by replaying its await-style handler over sealed rounds
 *       ({@code KeyRing.startToolReplay}): {@code input_required} with a sealed
 *       {@code requestState}, the result, or the core's error (-32021 for a question the request's
 *       capabilities do not cover). Nothing is kept between requests: any instance holding the same
 *       key finishes a call another began;
 *   <li>answers {@code server/discover}, which the SDK does not know;
 *   <li>hands every other request to the SDK's handler ({@code initialize}, {@code tools/list},
 *       ordinary tools, …), and on {@code 2026-07-28} completes its result through mrtr
 *       ({@code resultType}, and the caching fields {@code tools/list} and the other cacheable
 *       results need);
 *   <li>checks every {@code 2026-07-28} request against its HTTP headers ({@code checkRequest}) and
 *       sends mrtr's HTTP status with an error, when the requests come through {@link #servlet()}.
 * </ul>
 */
public final class MrtrStatelessTransport implements McpStatelessServerTransport {
  public static final String PROTOCOL = "2026-07-28";
  static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";

  private final McpStatelessServerTransport inner;
  private final KeyRing ring;
  private final McpJsonMapper json;
  private final Map<String, MrtrHandler> tools = new ConcurrentHashMap<>();
  private final Map<String, MrtrShedHandler> shedding = new ConcurrentHashMap<>();
  private final Map<String, MrtrHandler> prompts = new ConcurrentHashMap<>();
  private final List<Map.Entry<String, MrtrHandler>> resources = new CopyOnWriteArrayList<>();
  private volatile McpStatelessServerHandler sdk;
  private volatile ReplayGuard guard;
  private volatile ToolSettings settings = ToolSettings.builder().ttlSeconds(300).protocol(PROTOCOL).build();
  private volatile Map<String, Object> serverInfo = Map.of("name", "mrtr-java-sdk", "version", "0.1.0");
  private volatile Map<String, Object> capabilities;

  /** The HTTP side of one request that came through {@link #servlet()}: its headers, and the status to send. */
  static final class Exchange {
    final Map<String, String> headers;
    volatile int status;

    Exchange(Map<String, String> headers) {
      this.headers = headers;
    }
  }

  // The SDK's servlet calls the handler on the thread that serves the POST (doPost, then block()).
  private static final ThreadLocal<Exchange> CURRENT = new ThreadLocal<>();

  /**
   * @param inner the SDK's transport (its servlet)
   * @param ring the key ring that seals the rounds: the same key in every instance
   * @param json the SDK's JSON mapper ({@code McpJsonDefaults.getMapper()})
   */
  public MrtrStatelessTransport(McpStatelessServerTransport inner, KeyRing ring, McpJsonMapper json) {
    this.inner = inner;
    this.ring = ring;
    this.json = json;
  }

  /** A replay guard (single use of each sealed state) every instance shares; none by default. */
  public MrtrStatelessTransport guard(ReplayGuard guard) {
    this.guard = guard;
    return this;
  }

  /** How long a sealed round stays valid (300 s by default). */
  public MrtrStatelessTransport ttlSeconds(long seconds) {
    this.settings = ToolSettings.builder().ttlSeconds(seconds).protocol(PROTOCOL).build();
    return this;
  }

  /** The server's name and version, as {@code server/discover} gives them. */
  public MrtrStatelessTransport serverInfo(String name, String version) {
    this.serverInfo = Map.of("name", name, "version", version);
    return this;
  }

  /** The capabilities {@code server/discover} gives (default: tools, and prompts, resources where registered). */
  public MrtrStatelessTransport capabilities(Map<String, Object> capabilities) {
    this.capabilities = capabilities;
    return this;
  }

  /**
   * Registers an MRTR tool: its {@code 2026-07-28} calls are answered by {@code handler}. The result
   * goes to the SDK ({@code McpServer.sync(transport).tools(…)}) so that {@code tools/list} lists it;
   * the SDK itself calls it only for a client of an older protocol, which gets an error result.
   */
  public SyncToolSpecification tool(McpSchema.Tool tool, MrtrHandler handler) {
    tools.put(tool.name(), handler);
    return listed(tool, tool.name() + " asks the client for input: it needs protocol " + PROTOCOL);
  }

  /**
   * Registers a tool that may shed load ({@link MrtrShed#later}: a round of sealed state only), as
   * {@link #tool}.
   */
  public SyncToolSpecification sheddingTool(McpSchema.Tool tool, MrtrShedHandler handler) {
    shedding.put(tool.name(), handler);
    return listed(tool, tool.name() + " is served on protocol " + PROTOCOL);
  }

  /**
   * The SDK's specification of an MRTR tool: listed by {@code tools/list}, and called by the SDK only
   * for a client of an older protocol, which gets {@code refusal} as an error result.
   */
  private static SyncToolSpecification listed(McpSchema.Tool tool, String refusal) {
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler((context, request) ->
            McpSchema.CallToolResult.builder().addTextContent(refusal).isError(true).build())
        .build();
  }

  /** Registers an MRTR prompt, as {@link #tool}: the result goes to the SDK, for {@code prompts/list}. */
  public SyncPromptSpecification prompt(McpSchema.Prompt prompt, MrtrHandler handler) {
    prompts.put(prompt.name(), handler);
    return new SyncPromptSpecification(prompt, (context, request) -> {
      throw McpError.builder(McpSchema.ErrorCodes.INVALID_REQUEST)
          .message(prompt.name() + " asks the client for input: it needs protocol " + PROTOCOL)
          .build();
    });
  }

  /**
   * Registers an MRTR resource: {@code 2026-07-28} reads of a URI starting with {@code uriPrefix}
   * are answered by {@code handler} (its arguments are empty; {@code ctx.params().get("uri")}).
   * List it with the SDK as you would any resource or template.
   */
  public void resource(String uriPrefix, MrtrHandler handler) {
    resources.add(Map.entry(uriPrefix, handler));
  }

  // ---- McpStatelessServerTransport ------------------------------------------------------------

  @Override
  public void setMcpHandler(McpStatelessServerHandler handler) {
    this.sdk = handler;
    inner.setMcpHandler(new Installed());
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public Mono<Void> closeGracefully() {
    return inner.closeGracefully();
  }

  @Override
  public List<String> protocolVersions() {
    return inner.protocolVersions();
  }

  /**
   * The servlet to serve: the SDK's servlet (the wrapped transport), with each request's headers
   * handed to mrtr's checks and mrtr's HTTP status on its errors (-32021, -32020, … with 400).
   * Serving the SDK's servlet directly works too, without those two.
   */
  public HttpServlet servlet() {
    if (!(inner instanceof HttpServlet sdkServlet)) {
      throw new IllegalStateException("the wrapped transport is no servlet: " + inner.getClass().getName());
    }
    return new HttpServlet() {
      private static final long serialVersionUID = 1L;

      @Override
      public void init(ServletConfig config) throws ServletException {
        super.init(config);
        sdkServlet.init(config);
      }

      @Override
      public void destroy() {
        sdkServlet.destroy();
        super.destroy();
      }

      @Override
      protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
        Map<String, String> headers = new TreeMap<>();
        for (String name : Collections.list(request.getHeaderNames())) {
          headers.put(name.toLowerCase(Locale.ROOT), String.join(", ", Collections.list(request.getHeaders(name))));
        }
        Exchange exchange = new Exchange(headers);
        CURRENT.set(exchange);
        try {
          sdkServlet.service(request, new HttpServletResponseWrapper(response) {
            @Override
            public void setStatus(int status) {
              super.setStatus(status == 200 && exchange.status != 0 ? exchange.status : status);
            }
          });
        } finally {
          CURRENT.remove();
        }
      }
    };
  }

  // ---- the handler installed on the SDK's transport -------------------------------------------

  /** An answer built by mrtr: a JSON-RPC response's result or error, and its HTTP status. */
  private record Reply(int status, Map<String, Object> response) {}

  private final class Installed implements McpStatelessServerHandler {
    @Override
    public Mono<JSONRPCResponse> handleRequest(McpTransportContext context, JSONRPCRequest request) {
      Exchange exchange = CURRENT.get(); // read here: the SDK calls this on the POST's own thread
      if (!PROTOCOL.equals(protocolOf(request, exchange))) return sdk.handleRequest(context, request);
      return Mono.defer(() -> {
        String text;
        try {
          text = json.writeValueAsString(request);
          Reply reply = answer(request, text, exchange);
          if (reply != null) return Mono.just(respond(request, reply, exchange));
        } catch (IOException | MrtrException e) {
          return Mono.error(e);
        }
        return sdk.handleRequest(context, request).map(response -> completed(request, text, response, exchange));
      });
    }

    @Override
    public Mono<Void> handleNotification(McpTransportContext context, JSONRPCNotification notification) {
      return sdk.handleNotification(context, notification);
    }
  }

  /** The request's protocol: its {@code _meta} version, else its {@code MCP-Protocol-Version} header. */
  private static String protocolOf(JSONRPCRequest request, Exchange exchange) {
    if (request.params() instanceof Map<?, ?> params && params.get("_meta") instanceof Map<?, ?> meta
        && meta.get(META_VERSION) instanceof String version) {
      return version;
    }
    return exchange == null ? null : exchange.headers.get("mcp-protocol-version");
  }

  /** mrtr's answer to a 2026-07-28 request, or null: the SDK answers it. */
  private Reply answer(JSONRPCRequest request, String text, Exchange exchange) throws IOException, MrtrException {
    if (exchange != null) {
      try {
        Mrtr.checkRequest(text, json.writeValueAsString(exchange.headers), "[\"" + PROTOCOL + "\"]", PROTOCOL);
      } catch (MrtrException refused) {
        return error(request.id(), refused); // -32020, -32022 with data.supported, …
      }
    }
    Map<String, Object> params = request.params() instanceof Map<?, ?> ? json.convertValue(request.params(), MrtrContext.MAP) : Map.of();
    switch (request.method()) {
      case "server/discover": {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("supportedVersions", List.of(PROTOCOL));
        result.put("capabilities", capabilities != null ? capabilities : defaultCapabilities());
        result.put("serverInfo", serverInfo);
        return complete(text, result);
      }
      case "tools/call": {
        MrtrShedHandler shedder = params.get("name") instanceof String name ? shedding.get(name) : null;
        if (shedder != null) return shed(shedder, request, text, params);
        MrtrHandler handler = params.get("name") instanceof String name ? tools.get(name) : null;
        return handler == null ? null : run(handler, request, text);
      }
      case "prompts/get": {
        MrtrHandler handler = params.get("name") instanceof String name ? prompts.get(name) : null;
        return handler == null ? null : run(handler, request, text);
      }
      case "resources/read": {
        if (!(params.get("uri") instanceof String uri)) return null;
        for (Map.Entry<String, MrtrHandler> resource : resources) {
          if (uri.startsWith(resource.getKey())) return run(resource.getValue(), request, text);
        }
        return null;
      }
      default:
        return null;
    }
  }

  private Map<String, Object> defaultCapabilities() {
    Map<String, Object> caps = new LinkedHashMap<>();
    caps.put("tools", Map.of());
    if (!prompts.isEmpty()) caps.put("prompts", Map.of());
    if (!resources.isEmpty()) caps.put("resources", Map.of());
    return caps;
  }

  /**
   * The handler run on one request by the JVM package ({@code Mrtr.runTool}, whose run decides the
   * rounds and the refusals): {@code input_required} sealing a round, its result, or the core's
   * error, for a refusal even when the handler caught it at its question (a question the request
   * did not declare it can answer is -32021 with what it needs, data.requiredCapabilities).
   */
  private Reply run(MrtrHandler handler, JSONRPCRequest request, String text) throws IOException, MrtrException {
    Map<String, Object> message = json.readValue(text, MrtrContext.MAP);
    Tool<Exception> tool = (arguments, ctx) -> json.writeValueAsString(
        handler.handle(json.readValue(arguments, MrtrContext.MAP), new MrtrContext(ctx, message, json)));
    CallContext call = CallContext.anonymous(System.currentTimeMillis() / 1000);
    try {
      return parse(200, Mrtr.runTool(tool, text, ring, settings, call, guard));
    } catch (McpError e) {
      return new Reply(200, Map.of("jsonrpc", "2.0", "id", request.id(), "error", e.getJsonRpcError()));
    } catch (MrtrException e) {
      return error(request.id(), e);
    } catch (Exception e) {
      return error(request.id(), "internal-panic", "the handler failed: " + e, null);
    }
  }

  /** A load-shedding tool on one request: a round of sealed state only, or its result. */
  @SuppressWarnings("unchecked")
  private Reply shed(MrtrShedHandler handler, JSONRPCRequest request, String text, Map<String, Object> params) throws IOException, MrtrException {
    String call = CallContext.anonymous(System.currentTimeMillis() / 1000).toJson();
    try {
      String resumed = ring.resumeRound(text, "{}", settings.toJson(), call, guard);
      Map<String, Object> round = json.readValue(resumed, MrtrContext.MAP);
      int number = ((Number) round.get("round")).intValue();
      Map<String, Object> held = number > 0 && round.get("data") instanceof Map<?, ?> d ? (Map<String, Object>) d : null;
      Map<String, Object> arguments = params.get("arguments") instanceof Map<?, ?> a ? (Map<String, Object>) a : Map.of();
      Map<String, Object> result;
      try {
        result = handler.handle(arguments, new MrtrShed(held, number));
      } catch (MrtrShed.Later later) {
        return parse(200, ring.respondRound(text, resumed, "{}", json.writeValueAsString(later.data), settings.toJson(), call));
      } catch (McpError e) {
        return new Reply(200, Map.of("jsonrpc", "2.0", "id", request.id(), "error", e.getJsonRpcError()));
      } catch (MrtrException e) {
        throw e;
      } catch (Exception e) {
        return error(request.id(), "internal-panic", "the handler failed: " + e, null);
      }
      return complete(text, result);
    } catch (MrtrException e) {
      return error(request.id(), e);
    }
  }

  private Reply complete(String text, Map<String, Object> result) throws IOException, MrtrException {
    return parse(200, Mrtr.complete(text, json.writeValueAsString(result), PROTOCOL));
  }

  /** The core's error response to {@code id} for the failure {@code e}, with its data, and its HTTP status. */
  private Reply error(Object id, MrtrException e) throws IOException, MrtrException {
    return reply(Mrtr.errorResponse(json.writeValueAsString(id), e, PROTOCOL));
  }

  private Reply error(Object id, String rule, String message, String data) throws IOException, MrtrException {
    return reply(Mrtr.errorResponse(json.writeValueAsString(id), rule, message, data, PROTOCOL));
  }

  private Reply reply(ErrorResponse built) throws IOException {
    return parse(built.status(), built.response());
  }

  private Reply parse(int status, String response) throws IOException {
    return new Reply(status, json.readValue(response, MrtrContext.MAP));
  }

  /** The SDK's record of mrtr's response, with the request's own id; the status for the servlet. */
  private JSONRPCResponse respond(JSONRPCRequest request, Reply reply, Exchange exchange) {
    if (exchange != null && reply.status() != 200) exchange.status = reply.status();
    Object error = reply.response().get("error");
    if (error == null) return JSONRPCResponse.result(request.id(), reply.response().get("result"));
    if (error instanceof JSONRPCError e) return JSONRPCResponse.error(request.id(), e);
    Map<String, Object> e = json.convertValue(error, MrtrContext.MAP);
    return JSONRPCResponse.error(request.id(),
        new JSONRPCError(((Number) e.get("code")).intValue(), (String) e.get("message"), e.get("data")));
  }

  /** The SDK's answer on 2026-07-28: its result completed through mrtr; an error as it is. */
  private JSONRPCResponse completed(JSONRPCRequest request, String text, JSONRPCResponse response, Exchange exchange) {
    if (response.error() != null || response.result() == null) return response;
    try {
      Map<String, Object> result = json.convertValue(response.result(), MrtrContext.MAP);
      return respond(request, complete(text, result), exchange);
    } catch (IOException | MrtrException e) {
      try {
        return respond(request, e instanceof MrtrException m ? error(request.id(), m)
            : error(request.id(), "internal-panic", e.toString(), null), exchange);
      } catch (IOException | MrtrException again) {
        return JSONRPCResponse.error(request.id(), new JSONRPCError(-32603, again.toString()));
      }
    }
  }
}
