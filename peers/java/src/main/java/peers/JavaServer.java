// An MCP server on the official Java SDK (Maven io.modelcontextprotocol.sdk:mcp 2.2.0, its legacy stack), written the
// way its documentation shows: McpServer.sync over HttpServletStreamableServerTransportProvider
// (Streamable HTTP, a session a client), the servlet on an embedded Jetty 12.1.
//
//   java -cp target/peers-java/java-peers.jar peers.JavaServer PORT    # http://127.0.0.1:PORT/mcp
//
// This stack (io.modelcontextprotocol.server; 2.2.0's MRTR is the separate modern stack of
// peers.JavaModernServer) speaks 2025-11-25 at most and has no input_required result: every tool, the prompt and
// the resource ask with the SDK's own server requests on the call's stream
// (McpSyncServerExchange.createElicitation, createMessage, listRoots), blocking until the client
// answers. book_trip asks twice (the date, then the seat), sign_in asks a URL-mode elicitation
// (ElicitUrlRequest, with its elicitationId), reserve answers at once (2025-11-25 has no state to
// shed load with). The SDK itself refuses to send a server request the session's capabilities do
// not cover (McpAsyncServerExchange: an IllegalStateException, which McpServerSession answers with
// -32603 and its message); as the Go peer does, each handler refuses such a call first, with
// -32021 and data.requiredCapabilities (the code 2026-07-28 names; an McpError keeps its code).
package peers;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncPromptSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public final class JavaServer {
	static final String SIGN_IN = "https://example.com/sign-in";
	static final int MISSING_CAPABILITIES = -32021;

	/** -32021, naming the capabilities the request must declare, as 2026-07-28 words it. */
	static McpError missing(String what, Map<String, Object> required) {
		return McpError.builder(MISSING_CAPABILITIES)
			.message("the request does not declare the client capability " + what)
			.data(Map.of("requiredCapabilities", required))
			.build();
	}

	static void needForm(McpSyncServerExchange exchange) {
		ClientCapabilities caps = exchange.getClientCapabilities();
		ClientCapabilities.Elicitation elicitation = caps == null ? null : caps.elicitation();
		if (elicitation == null || (elicitation.form() == null && elicitation.url() != null)) {
			throw missing("elicitation", Map.of("elicitation", Map.of("form", Map.of())));
		}
	}

	/** Asks one string field, named key, and returns the accepted value. */
	static String form(McpSyncServerExchange exchange, String key, String message) {
		needForm(exchange);
		Map<String, Object> schema = Map.of("type", "object", "properties", Map.of(key, Map.of("type", "string")),
				"required", List.of(key));
		ElicitResult answer = exchange.createElicitation(McpSchema.ElicitRequest.builder(message, schema).build());
		Object value = answer.content() == null ? null : answer.content().get(key);
		if (answer.action() != ElicitResult.Action.ACCEPT || !(value instanceof String)) {
			throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("no " + key + " in " + answer).build();
		}
		return (String) value;
	}

	static CallToolResult text(String t) {
		return CallToolResult.builder().addTextContent(t).build();
	}

	static String arg(McpSchema.CallToolRequest request, String name) {
		Object value = request.arguments() == null ? null : request.arguments().get(name);
		return value == null ? "" : value.toString();
	}

	static SyncToolSpecification tool(String name, String description, List<String> args,
			BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, CallToolResult> handler) {
		Map<String, Object> properties = args.stream()
			.collect(Collectors.toMap(a -> a, a -> Map.of("type", "string")));
		Map<String, Object> schema = Map.of("type", "object", "properties", properties);
		McpSchema.Tool tool = McpSchema.Tool.builder().name(name).description(description).inputSchema(schema).build();
		return SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
	}

	static McpSyncServer server(HttpServletStreamableServerTransportProvider transport) {
		SyncToolSpecification getWeather = tool("get_weather", "one round", List.of("location"),
				(exchange, request) -> text(arg(request, "location") + ": 22 degrees "
						+ form(exchange, "units", "Which units?")));
		SyncToolSpecification bookTrip = tool("book_trip", "two rounds", List.of("destination"), (exchange, request) -> {
			String date = form(exchange, "date", "When?");
			String seat = form(exchange, "seat", "Which seat on " + date + "?");
			return text(arg(request, "destination") + " on " + date + ", seat " + seat);
		});
		SyncToolSpecification summarize = tool("summarize", "sampling", List.of("text"), (exchange, request) -> {
			ClientCapabilities caps = exchange.getClientCapabilities();
			if (caps == null || caps.sampling() == null) {
				throw missing("sampling", Map.of("sampling", Map.of()));
			}
			McpSchema.SamplingMessage message = new McpSchema.SamplingMessage(McpSchema.Role.USER,
					new McpSchema.TextContent("Summarise: " + arg(request, "text")));
			McpSchema.CreateMessageResult answer = exchange
				.createMessage(McpSchema.CreateMessageRequest.builder().messages(List.of(message)).maxTokens(50).build());
			String summary = answer.content() instanceof McpSchema.TextContent t ? t.text() : "";
			return text("summary: " + summary);
		});
		SyncToolSpecification listRoots = tool("list_roots", "roots", List.of(), (exchange, request) -> text(
				exchange.listRoots().roots().stream().map(McpSchema.Root::uri).collect(Collectors.joining(", "))));
		SyncToolSpecification reserve = tool("reserve", "load shedding (none on 2025-11-25)", List.of("table"),
				(exchange, request) -> text("table " + arg(request, "table") + " reserved"));
		SyncToolSpecification signIn = tool("sign_in", "URL elicitation", List.of(), (exchange, request) -> {
			ClientCapabilities caps = exchange.getClientCapabilities();
			if (caps == null || caps.elicitation() == null || caps.elicitation().url() == null) {
				throw missing("elicitation.url", Map.of("elicitation", Map.of("url", Map.of())));
			}
			ElicitResult answer = exchange
				.createElicitation(McpSchema.ElicitUrlRequest.builder("Sign in", SIGN_IN, "sign-in-1").build());
			return text(answer.action() == ElicitResult.Action.ACCEPT ? "signed in"
					: "not signed in: " + answer.action().name().toLowerCase());
		});

		McpSchema.Prompt reviewPrompt = new McpSchema.Prompt("review", "asks first",
				List.of(new McpSchema.PromptArgument("pr", "the pull request", true)));
		SyncPromptSpecification review = new SyncPromptSpecification(reviewPrompt, (exchange, request) -> {
			Object pr = request.arguments() == null ? null : request.arguments().get("pr");
			String focus = form(exchange, "focus", "Focus of the review of " + pr + "?");
			McpSchema.PromptMessage message = new McpSchema.PromptMessage(McpSchema.Role.USER,
					new McpSchema.TextContent("Review " + pr + ": " + focus));
			return new McpSchema.GetPromptResult(null, List.of(message));
		});
		McpSchema.Resource notesResource = McpSchema.Resource.builder().uri("notes://today").name("notes").build();
		SyncResourceSpecification notes = new SyncResourceSpecification(notesResource, (exchange, request) -> {
			String topic = form(exchange, "topic", "Notes on which topic?");
			return new McpSchema.ReadResourceResult(
					List.of(new McpSchema.TextResourceContents(request.uri(), "text/plain", "notes on " + topic)));
		});

		return McpServer.sync(transport)
			.serverInfo("java-peer", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(false).prompts(false).resources(false, false).build())
			.requestTimeout(java.time.Duration.ofSeconds(60))
			.tools(getWeather, bookTrip, summarize, listRoots, reserve, signIn)
			.prompts(review)
			.resources(notes)
			.build();
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
			.jsonMapper(McpJsonDefaults.getMapper())
			.mcpEndpoint("/mcp")
			.build();
		McpSyncServer mcp = server(transport);
		Server jetty = new Server();
		ServerConnector connector = new ServerConnector(jetty);
		connector.setHost("127.0.0.1");
		connector.setPort(port);
		jetty.addConnector(connector);
		ServletContextHandler context = new ServletContextHandler();
		context.setContextPath("/");
		ServletHolder holder = new ServletHolder(transport);
		holder.setAsyncSupported(true);
		context.addServlet(holder, "/*");
		jetty.setHandler(context);
		jetty.setStopAtShutdown(true);
		Runtime.getRuntime().addShutdownHook(new Thread(mcp::closeGracefully));
		jetty.start();
		jetty.join();
	}
}
