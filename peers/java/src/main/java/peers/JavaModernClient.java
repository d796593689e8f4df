// An MCP client on the official Java SDK's "modern" stack (Maven io.modelcontextprotocol.sdk:mcp
// 2.2.0, package io.modelcontextprotocol.modern): io.modelcontextprotocol.modern.client.McpClient
// over HttpClientMcpTransport, on 2026-07-28.
//
//   java -cp target/peers-java/java-peers.jar peers.JavaModernClient URL 2026-07-28
//   java -cp target/peers-java/java-peers.jar peers.JavaModernClient URL 2026-07-28 --break request-state
//
// The SDK's client answers each input_required round with the handlers it was built with and
// retries (at most McpClient.DEFAULT_MAX_INPUT_ROUNDS, 10; a round of requestState only after a
// 50-250 ms backoff). Its handlers are form and URL elicitation only (McpClient.SyncBuilder
// formElicitation, urlElicitation; it declares what they cover): it has no sampling nor roots
// handler, so it cannot run summarize and list_roots (peers/run gates them, CLIENT_BASE_CANNOT).
// It runs get_weather, book_trip, two get_weather at once, the prompt review, the resource
// notes://today, then the scenarios after the first ones that peers/run lists in PEER_SCENARIOS
// (all by default): reserve, sign_in, no_capability (a client with no handler, which declares no
// capability) and form_only (a client with the form handler only). With `--break request-state`
// it calls get_weather once (callOnce), answers by hand and retries with a requestState other than
// the one it was given. A failed scenario is printed on stderr as `SCENARIO: what went wrong`;
// exit status 0 when every scenario got its expected answer, 1 when one did not, 2 on another protocol.
package peers;

import io.modelcontextprotocol.modern.McpException;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.McpSchema.CallToolResult;
import io.modelcontextprotocol.modern.McpSchema.ElicitResult;
import io.modelcontextprotocol.modern.client.McpClient;
import io.modelcontextprotocol.modern.client.McpMissingClientCapabilityException;
import io.modelcontextprotocol.modern.client.McpSyncClient;
import io.modelcontextprotocol.modern.client.transport.HttpClientMcpTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

public final class JavaModernClient {
	static final String MRTR = "2026-07-28";
	static final Map<String, String> ANSWERS = Map.of("units", "celsius", "date", "2026-12-01", "seat", "12A",
			"focus", "tests", "topic", "mrtr");
	static final String SIGN_IN = "https://example.com/sign-in";
	static final List<String> failed = new ArrayList<>();

	static ElicitResult form(McpSchema.ElicitFormRequest request) {
		Object properties = request.requestedSchema() == null ? null : request.requestedSchema().get("properties");
		Map<String, Object> content = new HashMap<>();
		if (properties instanceof Map<?, ?> keys) {
			for (Object key : keys.keySet()) {
				content.put((String) key, ANSWERS.get((String) key));
			}
		}
		return ElicitResult.accept(content);
	}

	static ElicitResult url(McpSchema.ElicitUrlRequest request) {
		if (!"Sign in".equals(request.message()) || !SIGN_IN.equals(request.url())) {
			return ElicitResult.decline();
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

	static void expect(String scenario, Supplier<String> got, String want) {
		try {
			String text = got.get();
			if (want.equals(text)) {
				System.out.println("ok   " + scenario + ": " + text);
			}
			else {
				failed.add(scenario + ": got " + text + ", want " + want);
			}
		}
		catch (RuntimeException e) {
			failed.add(scenario + ": " + e);
		}
	}

	/** The call must be refused with -32021 whose data.requiredCapabilities names capability. */
	static void refused(String scenario, Supplier<Object> call, String capability) {
		try {
			Object result = call.get();
			failed.add(scenario + ": expected error -32021, got " + result);
		}
		catch (McpMissingClientCapabilityException e) {
			McpSchema.ClientCapabilities required = e.requiredCapabilities();
			boolean names = required != null && switch (capability) {
				case "elicitation" -> required.elicitation() != null;
				case "sampling" -> required.sampling() != null;
				default -> false;
			};
			if (names) {
				System.out.println("ok   " + scenario + ": -32021 naming " + capability);
			}
			else {
				failed.add(scenario + ": data.requiredCapabilities does not name " + capability + ": " + required);
			}
		}
		catch (RuntimeException e) {
			failed.add(scenario + ": expected error -32021, got " + e);
		}
	}

	static HttpClientMcpTransport transport(String url) {
		return HttpClientMcpTransport.builder(url).build();
	}

	static McpClient.SyncBuilder builder(String url) {
		return McpClient.sync(transport(url))
			.clientInfo(McpSchema.Implementation.builder("java-modern-peer", "1.0.0").build())
			.roundTimeout(Duration.ofSeconds(30));
	}

	static String weather(McpSyncClient client, String location) {
		return text(client.tool("get_weather").arguments(Map.of("location", location)).call());
	}

	static void scenarios(String url, Set<String> extra) {
		McpSyncClient client = builder(url).formElicitation(JavaModernClient::form)
			.urlElicitation(JavaModernClient::url)
			.build();
		expect("get_weather", () -> weather(client, "Paris"), "Paris: 22 degrees celsius");
		expect("book_trip", () -> text(client.tool("book_trip").arguments(Map.of("destination", "Rome")).call()),
				"Rome on 2026-12-01, seat 12A");
		// Two calls to one tool in flight at once, each retried with its own answers.
		expect("get_weather in parallel", () -> {
			CompletableFuture<String> oslo = CompletableFuture.supplyAsync(() -> weather(client, "Oslo"));
			CompletableFuture<String> lima = CompletableFuture.supplyAsync(() -> weather(client, "Lima"));
			return oslo.join() + " / " + lima.join();
		}, "Oslo: 22 degrees celsius / Lima: 22 degrees celsius");
		expect("review", () -> {
			McpSchema.GetPromptResult prompt = client.prompt("review").arguments(Map.of("pr", "12")).get();
			return prompt.messages().get(0).content() instanceof McpSchema.TextContent t ? t.text() : String.valueOf(prompt);
		}, "Review 12: tests");
		expect("notes://today", () -> {
			McpSchema.ReadResourceResult notes = client.resource("notes://today").read();
			return notes.contents().get(0) instanceof McpSchema.TextResourceContents t ? t.text() : String.valueOf(notes);
		}, "notes on mrtr");
		if (extra.contains("reserve")) {
			expect("reserve", () -> text(client.tool("reserve").arguments(Map.of("table", "7")).call()), "table 7 reserved");
		}
		if (extra.contains("sign_in")) {
			expect("sign_in", () -> text(client.tool("sign_in").arguments(Map.of()).call()), "signed in");
		}
		if (extra.contains("no_capability")) {
			McpSyncClient none = builder(url).build();
			refused("get_weather declaring nothing", () -> none.tool("get_weather").arguments(Map.of("location", "Paris")).call(),
					"elicitation");
		}
		if (extra.contains("form_only")) {
			McpSyncClient formOnly = builder(url).formElicitation(JavaModernClient::form).build();
			refused("summarize declaring form elicitation only",
					() -> formOnly.tool("summarize").arguments(Map.of("text", "a long text")).call(), "sampling");
			expect("get_weather declaring form elicitation only", () -> weather(formOnly, "Paris"),
					"Paris: 22 degrees celsius");
		}
	}

	/** get_weather's first round, answered by hand, and a retry with a requestState it was not given. */
	static void brokenRetry(String url) {
		McpSyncClient client = builder(url).formElicitation(JavaModernClient::form).build();
		McpSchema.CallToolOutcome first = client.tool("get_weather").arguments(Map.of("location", "Paris")).callOnce();
		if (!(first instanceof McpSchema.InputRequiredResult asked) || asked.inputRequests() == null) {
			failed.add("get_weather asked nothing: " + first);
			return;
		}
		Map<String, Object> responses = new HashMap<>();
		asked.inputRequests().keySet().forEach(key -> responses.put(key, Map.of("action", "accept", "content", Map.of("units", "celsius"))));
		try {
			client.tool("get_weather")
				.arguments(Map.of("location", "Paris"))
				.inputResponses(responses)
				.requestState("not-the-state-it-was-given")
				.callOnce();
		}
		catch (McpException e) {
			// the server may refuse it: the fault is the point
		}
	}

	public static void main(String[] args) {
		boolean broken = args.length == 4 && "--break".equals(args[2]) && "request-state".equals(args[3]);
		if ((args.length != 2 && !broken) || !MRTR.equals(args[1])) {
			System.err.println("usage: JavaModernClient URL 2026-07-28 [--break request-state]");
			System.exit(2);
		}
		String listed = System.getenv("PEER_SCENARIOS");
		Set<String> extra = Set.copyOf(listed == null ? List.of("reserve", "sign_in", "no_capability", "form_only")
				: Arrays.stream(listed.split(",")).filter(s -> !s.isEmpty()).toList());
		try {
			if (broken) {
				brokenRetry(args[0]);
			}
			else {
				scenarios(args[0], extra);
			}
		}
		catch (RuntimeException e) {
			failed.add("unexpected: " + e);
		}
		failed.forEach(System.err::println);
		System.exit(failed.isEmpty() ? 0 : 1);
	}
}
