// An MCP client on the official Java SDK (Maven io.modelcontextprotocol.sdk:mcp 2.2.0, its legacy stack): runs every
// scenario it can against a server, over HttpClientStreamableHttpTransport.
//
//   java -cp target/peers-java/java-peers.jar peers.JavaClient URL 2025-11-25
//
// This stack (io.modelcontextprotocol.client; 2.2.0's MRTR client is the separate modern stack of
// peers.JavaModernClient) speaks 2025-11-25 at most (no input_required, no retry), so this is a 2025-11-25 client
// only: it declares elicitation (form and url), sampling and roots, answers every server request on
// the call's stream (a URL-mode elicitation with an accept) and checks each result: get_weather,
// book_trip, summarize, list_roots, two get_weather at once, then the scenarios after the first ones
// as peers/run lists them in PEER_SCENARIOS (all it can by default: reserve, sign_in). A failed
// scenario is printed on stderr as `SCENARIO: what went wrong`. Exit status 0 when every scenario
// got its expected answer, 1 when one did not, 2 on a protocol it does not speak.
package peers;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

public final class JavaClient {
	static final String LEGACY = "2025-11-25";
	static final Map<String, String> ANSWERS = Map.of("units", "celsius", "date", "2026-12-01", "seat", "12A",
			"focus", "tests", "topic", "mrtr");
	static final String SIGN_IN = "https://example.com/sign-in";

	static final class Failed extends RuntimeException {
		Failed(String message) {
			super(message);
		}
	}

	static void expect(String scenario, String got, String want) {
		if (!want.equals(got)) {
			throw new Failed(scenario + ": got " + got + ", want " + want);
		}
	}

	static ElicitResult form(McpSchema.ElicitFormRequest request) {
		Object properties = request.requestedSchema() == null ? null : request.requestedSchema().get("properties");
		Map<String, Object> content = new HashMap<>();
		if (properties instanceof Map<?, ?> keys) {
			for (Object key : keys.keySet()) {
				content.put((String) key, ANSWERS.get((String) key));
			}
		}
		return new ElicitResult(ElicitResult.Action.ACCEPT, content);
	}

	static ElicitResult url(McpSchema.ElicitUrlRequest request) {
		if (!"Sign in".equals(request.message()) || !SIGN_IN.equals(request.url())) {
			return new ElicitResult(ElicitResult.Action.DECLINE, null);
		}
		return new ElicitResult(ElicitResult.Action.ACCEPT, null);
	}

	static String text(CallToolResult result) {
		if (result.content() == null || result.content().isEmpty()
				|| !(result.content().get(0) instanceof McpSchema.TextContent t)) {
			return String.valueOf(result);
		}
		return Boolean.TRUE.equals(result.isError()) ? "error: " + t.text() : t.text();
	}

	static String call(McpSyncClient client, String scenario, String tool, Map<String, Object> args) {
		try {
			return text(client.callTool(new McpSchema.CallToolRequest(tool, args)));
		}
		catch (Failed e) {
			throw e;
		}
		catch (RuntimeException e) {
			throw new Failed(scenario + ": " + e);
		}
	}

	static void scenarios(String url, Set<String> extra) {
		URI uri = URI.create(url);
		String base = uri.getScheme() + "://" + uri.getRawAuthority();
		HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base)
			.endpoint(uri.getRawPath())
			.build();
		McpSchema.ClientCapabilities capabilities = McpSchema.ClientCapabilities.builder()
			.elicitation(true, true)
			.sampling()
			.roots(false)
			.build();
		McpSyncClient client = McpClient.sync(transport)
			.clientInfo(new McpSchema.Implementation("java-peer", "1.0.0"))
			.requestTimeout(Duration.ofSeconds(30))
			.capabilities(capabilities)
			.elicitation(JavaClient::form)
			.urlElicitation(JavaClient::url)
			.sampling(request -> McpSchema.CreateMessageResult
				.builder(McpSchema.Role.ASSISTANT, new McpSchema.TextContent("short"), "m-1")
				.build())
			.roots(new McpSchema.Root("file:///work", "work"))
			.build();
		try {
			try {
				client.initialize();
			}
			catch (RuntimeException e) {
				throw new Failed("initialize: " + e);
			}
			expect("get_weather", call(client, "get_weather", "get_weather", Map.of("location", "Paris")),
					"Paris: 22 degrees celsius");
			expect("book_trip", call(client, "book_trip", "book_trip", Map.of("destination", "Rome")),
					"Rome on 2026-12-01, seat 12A");
			expect("summarize", call(client, "summarize", "summarize", Map.of("text", "a long text")), "summary: short");
			expect("list_roots", call(client, "list_roots", "list_roots", Map.of()), "file:///work");
			// Two calls to one tool in flight at once, each answered on its own stream.
			CompletableFuture<String> oslo = CompletableFuture
				.supplyAsync(() -> call(client, "concurrent", "get_weather", Map.of("location", "Oslo")));
			CompletableFuture<String> lima = CompletableFuture
				.supplyAsync(() -> call(client, "concurrent", "get_weather", Map.of("location", "Lima")));
			try {
				expect("concurrent", oslo.join() + " / " + lima.join(),
						"Oslo: 22 degrees celsius / Lima: 22 degrees celsius");
			}
			catch (CompletionException e) {
				throw e.getCause() instanceof RuntimeException r ? r : e;
			}
			if (extra.contains("reserve")) {
				expect("reserve", call(client, "reserve", "reserve", Map.of("table", "7")), "table 7 reserved");
			}
			if (extra.contains("sign_in")) {
				expect("sign_in", call(client, "sign_in", "sign_in", Map.of()), "signed in");
			}
		}
		finally {
			client.closeGracefully();
		}
	}

	public static void main(String[] args) {
		String url = args[0];
		String protocol = args[1];
		if (!LEGACY.equals(protocol)) {
			System.err.println("the Java SDK speaks 2025-11-25 at most, not " + protocol);
			System.exit(2);
		}
		String listed = System.getenv("PEER_SCENARIOS");
		Set<String> extra = Set.copyOf(listed == null ? List.of("reserve", "sign_in")
				: Arrays.stream(listed.split(",")).filter(s -> !s.isEmpty()).toList());
		int status = 0;
		try {
			scenarios(url, extra);
		}
		catch (Failed e) {
			System.err.println(e.getMessage());
			status = 1;
		}
		catch (RuntimeException e) {
			System.err.println("unexpected: " + e);
			status = 1;
		}
		System.exit(status);
	}
}
