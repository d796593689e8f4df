package dev.mrtr.javasdk;

import java.util.Map;

/**
 * An await-style MRTR handler: a tool's (or a prompt's) arguments and its context in, the result
 * out, as the JSON of the result ({@code CallToolResult}, {@code GetPromptResult},
 * {@code ReadResourceResult}) in plain maps and lists. It runs again on every request of its call:
 * {@link MrtrContext#elicit} and the other questions return the client's answer when the request
 * carries one and otherwise stop the run, and the adapter answers {@code input_required}.
 */
@FunctionalInterface
public interface MrtrHandler {
  Map<String, Object> handle(Map<String, Object> arguments, MrtrContext ctx) throws Exception;
}
