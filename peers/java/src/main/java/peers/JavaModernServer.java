// An MCP server on the official Java SDK's "modern" stack (Maven io.modelcontextprotocol.sdk:mcp
// 2.2.0, package io.modelcontextprotocol.modern): io.modelcontextprotocol.modern.server.McpServer
// with its tools, prompts and resources features over HttpServletMcpTransport, on an embedded
// Jetty 12.1, written the way the SDK's API shows it.
//
//   java -cp target/peers-java/java-peers.jar peers.JavaModernServer PORT    # http://127.0.0.1:PORT/mcp
//
// 2026-07-28 only (the modern McpServer refuses an initialize without the 2026-07-28 _meta claim
// with -32022): every handler asks for what it lacks by returning an InputRequiredResult and reads
// the answers from the retry's inputResponses, as the Go peer does. book_trip carries the date in
// its requestState (the SDK seals it with HmacRequestStateCodec and opens it on the retry); reserve
// sheds load with a round of requestState only (SEP-2322 Use Case 2); sign_in asks a URL-mode
// elicitation. Each tool names its required client capabilities (McpSyncTool.of(definition,
// required, handler)), so the SDK itself refuses a request that does not declare them with -32021
// and data.requiredCapabilities. summarize and list_roots ask with the SDK's deprecated
// sampling/roots input requests (InputRequiredResult.Builder.createMessage, listRoots).
package peers;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.modern.McpException;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.McpSchema.CallToolOutcome;
import io.modelcontextprotocol.modern.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.modern.McpSchema.ElicitResult;
import io.modelcontextprotocol.modern.McpSchema.InputRequiredResult;
import io.modelcontextprotocol.modern.server.InputResponses;
import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpServer;
import io.modelcontextprotocol.modern.server.McpSyncResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncPrompt;
import io.modelcontextprotocol.modern.server.feature.McpSyncPromptRepository;
import io.modelcontextprotocol.modern.server.feature.McpSyncResource;
import io.modelcontextprotocol.modern.server.feature.McpSyncResourceRepository;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.PromptsFeature;
import io.modelcontextprotocol.modern.server.feature.PromptsPage;
import io.modelcontextprotocol.modern.server.feature.ResourcesFeature;
import io.modelcontextprotocol.modern.server.feature.ResourcesPage;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public final class JavaModernServer {
	static final String SIGN_IN = "https://example.com/sign-in";
	static final McpJsonMapper JSON = McpJsonDefaults.getMapper();

	static final ClientCapabilities FORM = ClientCapabilities.builder()
		.elicitation(new ClientCapabilities.Elicitation(new ClientCapabilities.Elicitation.Form(), null))
		.build();
	static final ClientCapabilities URL = ClientCapabilities.builder()
		.elicitation(new ClientCapabilities.Elicitation(null, new ClientCapabilities.Elicitation.Url()))
		.build();
	@SuppressWarnings("deprecation")
	static final ClientCapabilities SAMPLING = ClientCapabilities.builder().sampling().build();
	@SuppressWarnings("deprecation")
	static final ClientCapabilities ROOTS = ClientCapabilities.builder().roots().build();

	static McpSchema.ElicitFormRequest form(String key, String message) {
		Map<String, Object> schema = Map.of("type", "object", "properties", Map.of(key, Map.of("type", "string")),
				"required", List.of(key));
		return McpSchema.ElicitFormRequest.builder(message, schema).build();
	}

	/** The accepted value of field key in the answer to the input request key, or null. */
	static String accepted(Map<String, Object> responses, String key) {
		ElicitResult answer = InputResponses.get(responses, key, ElicitResult.class, JSON);
		if (answer == null || answer.action() != ElicitResult.Action.ACCEPT || answer.content() == null) {
			return null;
		}
		return answer.content().get(key) instanceof String value ? value : null;
	}

	static McpSyncResponse<CallToolOutcome> text(String t) {
		return McpSyncResponse.result(McpSchema.CallToolResult.builder()
			.content(List.of(McpSchema.TextContent.builder(t).build()))
			.build());
	}

	static McpSyncResponse<CallToolOutcome> ask(InputRequiredResult.Builder builder) {
		return McpSyncResponse.result(builder.build());
	}

	static String arg(McpSchema.CallToolRequest request, String name) {
		Object value = request.arguments() == null ? null : request.arguments().get(name);
		return value == null ? "" : value.toString();
	}

	static McpSyncTool tool(String name, String description, List<String> args, ClientCapabilities required,
			BiFunction<McpRequestContext, McpSchema.CallToolRequest, McpSyncResponse<CallToolOutcome>> handler) {
		Map<String, Object> properties = args.stream()
			.collect(Collectors.toMap(a -> a, a -> Map.of("type", "string")));
		McpSchema.Tool tool = McpSchema.Tool.builder(name, Map.of("type", "object", "properties", properties))
			.description(description)
			.build();
		return McpSyncTool.of(tool, required, handler::apply);
	}

	@SuppressWarnings("deprecation")
	static List<McpSyncTool> tools() {
		McpSyncTool getWeather = tool("get_weather", "one round", List.of("location"), FORM, (ctx, request) -> {
			String units = accepted(request.inputResponses(), "units");
			if (units == null) {
				return ask(InputRequiredResult.builder().elicit("units", form("units", "Which units?")));
			}
			return text(arg(request, "location") + ": 22 degrees " + units);
		});
		McpSyncTool bookTrip = tool("book_trip", "two rounds", List.of("destination"), FORM, (ctx, request) -> {
			String date = accepted(request.inputResponses(), "date");
			if (date == null && request.requestState() != null) {
				date = request.requestState(); // opened by the SDK's codec: what this server sealed
			}
			if (date == null) {
				return ask(InputRequiredResult.builder().elicit("date", form("date", "When?")));
			}
			String seat = accepted(request.inputResponses(), "seat");
			if (seat == null) {
				return ask(InputRequiredResult.builder()
					.elicit("seat", form("seat", "Which seat on " + date + "?"))
					.requestState(date));
			}
			return text(arg(request, "destination") + " on " + date + ", seat " + seat);
		});
		McpSyncTool summarize = tool("summarize", "sampling", List.of("text"), SAMPLING, (ctx, request) -> {
			McpSchema.CreateMessageResult answer = InputResponses.get(request.inputResponses(), "summary",
					McpSchema.CreateMessageResult.class, JSON);
			if (answer == null) {
				McpSchema.SamplingMessage message = McpSchema.SamplingMessage
					.builder(McpSchema.Role.USER, McpSchema.TextContent.builder("Summarise: " + arg(request, "text")).build())
					.build();
				return ask(InputRequiredResult.builder()
					.createMessage("summary", McpSchema.CreateMessageRequest.builder(List.of(message), 50).build()));
			}
			String summary = answer.content() instanceof McpSchema.TextContent t ? t.text() : "";
			return text("summary: " + summary);
		});
		McpSyncTool listRoots = tool("list_roots", "roots", List.of(), ROOTS, (ctx, request) -> {
			McpSchema.ListRootsResult answer = InputResponses.get(request.inputResponses(), "roots",
					McpSchema.ListRootsResult.class, JSON);
			if (answer == null) {
				return ask(InputRequiredResult.builder().listRoots("roots"));
			}
			return text(answer.roots().stream().map(McpSchema.Root::uri).collect(Collectors.joining(", ")));
		});
		// Load shedding: the first request answers with what it did so far in a requestState and no
		// questions; the retry (any instance holding the key) finishes it.
		McpSyncTool reserve = tool("reserve", "load shedding: a round with state only", List.of("table"),
				ClientCapabilities.NONE, (ctx, request) -> {
					String held = "table " + arg(request, "table") + " held";
					if (request.requestState() == null) {
						return ask(InputRequiredResult.builder().requestState(held));
					}
					if (!held.equals(request.requestState())) {
						throw McpException.invalidParams("not the state of this reservation");
					}
					return text("table " + arg(request, "table") + " reserved");
				});
		McpSyncTool signIn = tool("sign_in", "URL elicitation", List.of(), URL, (ctx, request) -> {
			ElicitResult answer = InputResponses.get(request.inputResponses(), "sign_in", ElicitResult.class, JSON);
			if (answer == null) {
				return ask(InputRequiredResult.builder().elicitUrl("sign_in", "Sign in", SIGN_IN));
			}
			return text(answer.action() == ElicitResult.Action.ACCEPT ? "signed in"
					: "not signed in: " + answer.action().name().toLowerCase());
		});
		return List.of(getWeather, bookTrip, summarize, listRoots, reserve, signIn);
	}

	static McpServer server() {
		Map<String, McpSyncTool> byName = new LinkedHashMap<>();
		tools().forEach(t -> byName.put(t.definition().name(), t));
		McpSyncToolRepository tools = new McpSyncToolRepository() {
			public ToolsPage list(McpRequestContext ctx, String cursor) {
				return ToolsPage.of(byName.values().stream().map(McpSyncTool::definition).toList());
			}

			public McpSyncTool find(McpRequestContext ctx, String name) {
				return byName.get(name);
			}
		};

		McpSchema.Prompt reviewPrompt = McpSchema.Prompt.builder("review")
			.description("asks first")
			.arguments(List.of(McpSchema.PromptArgument.builder("pr").description("the pull request").required(true).build()))
			.build();
		McpSyncPrompt review = McpSyncPrompt.of(reviewPrompt, FORM, (ctx, request) -> {
			String pr = request.arguments() == null ? null : request.arguments().get("pr");
			String focus = accepted(request.inputResponses(), "focus");
			if (focus == null) {
				return McpSyncResponse.result(InputRequiredResult.builder()
					.elicit("focus", form("focus", "Focus of the review of " + pr + "?"))
					.build());
			}
			McpSchema.PromptMessage message = McpSchema.PromptMessage
				.builder(McpSchema.Role.USER, McpSchema.TextContent.builder("Review " + pr + ": " + focus).build())
				.build();
			return McpSyncResponse.result(McpSchema.GetPromptResult.builder(List.of(message)).build());
		});
		McpSyncPromptRepository prompts = new McpSyncPromptRepository() {
			public PromptsPage list(McpRequestContext ctx, String cursor) {
				return PromptsPage.of(List.of(reviewPrompt));
			}

			public McpSyncPrompt find(McpRequestContext ctx, String name) {
				return "review".equals(name) ? review : null;
			}
		};

		McpSchema.Resource notesResource = McpSchema.Resource.builder("notes://today", "notes").build();
		McpSyncResource notes = McpSyncResource.of(FORM, (ctx, request) -> {
			String topic = accepted(request.inputResponses(), "topic");
			if (topic == null) {
				return McpSyncResponse.result(InputRequiredResult.builder()
					.elicit("topic", form("topic", "Notes on which topic?"))
					.build());
			}
			return McpSyncResponse.result(McpSchema.ReadResourceResult
				.builder(List.of(McpSchema.TextResourceContents.builder(request.uri(), "notes on " + topic)
					.mimeType("text/plain")
					.build()))
				.build());
		});
		McpSyncResourceRepository resources = new McpSyncResourceRepository() {
			public ResourcesPage list(McpRequestContext ctx, String cursor) {
				return ResourcesPage.of(List.of(notesResource));
			}

			public McpSyncResource find(McpRequestContext ctx, String uri) {
				return "notes://today".equals(uri) ? notes : null;
			}
		};

		return McpServer.builder()
			.serverInfo(McpSchema.Implementation.builder("java-modern-peer", "1.0.0").build())
			.jsonMapper(JSON)
			.feature(ToolsFeature.ofSync(tools))
			.feature(PromptsFeature.ofSync(prompts))
			.feature(ResourcesFeature.ofSync(resources))
			.build();
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		HttpServletMcpTransport transport = HttpServletMcpTransport.builder(server()).jsonMapper(JSON).endpoint("/mcp").build();
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
		jetty.start();
		jetty.join();
	}
}
