package dev.mrtr;

import mrtr.MrtrException;

/**
 * An await-style tool, for {@link Mrtr#runTool}: the request's {@code params.arguments} (JSON text,
 * {@code {}} when absent) and its {@link ToolContext} in, the result ({@code CallToolResult}, or
 * a prompt's or resource's result, as JSON text) out. It reads as if the client's answers were at
 * hand: {@code ctx.elicit(…)} returns the answer, or ends the round there.
 *
 * <p>It runs again, from the top, on every request of its call (the tool is replayed, not
 * resumed): code before its last ask must be free of side effects.
 *
 * @param <X> the checked exception the tool throws of its own ({@link RuntimeException} when none,
 *     as Java infers it for a lambda that throws none); {@link Mrtr#runTool} throws it as it was,
 *     unless a refusal at an ask came first
 */
@FunctionalInterface
public interface Tool<X extends Exception> {
  String run(String argumentsJson, ToolContext ctx) throws MrtrException, X;
}
