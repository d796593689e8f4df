package dev.mrtr.example;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mrtr.MrtrException;

/**
 * The peers' scenario tools (as peers/mrtr_server.py serves them), written once, await-style: each
 * reads as if the client's answers were at hand, and runs again on every request of its call.
 */
final class Tools {
  private Tools() {}

  /** An await-style tool: the request's arguments and its context in, the result out. */
  @FunctionalInterface
  interface Tool {
    JsonObject run(JsonObject args, Ctx ctx) throws MrtrException;
  }

  static final String SIGN_IN = "https://example.com/sign-in";

  static JsonObject form(String key) {
    JsonObject schema = strings(key);
    JsonArray required = new JsonArray();
    required.add(key);
    schema.add("required", required);
    return schema;
  }

  static JsonObject strings(String... names) {
    JsonObject properties = new JsonObject();
    for (String name : names) properties.add(name, obj("type", "string"));
    JsonObject schema = obj("type", "object");
    schema.add("properties", properties);
    return schema;
  }

  static JsonObject obj(String key, String value) {
    JsonObject o = new JsonObject();
    o.addProperty(key, value);
    return o;
  }

  static JsonObject text(String value) {
    JsonObject content = obj("type", "text");
    content.addProperty("text", value);
    JsonArray list = new JsonArray();
    list.add(content);
    JsonObject result = new JsonObject();
    result.add("content", list);
    return result;
  }

  /** A string member as text: a string's value, anything else as JSON ({@code null} when absent). */
  static String str(JsonObject o, String key) {
    JsonElement e = o == null ? null : o.get(key);
    if (e == null || e.isJsonNull()) return "null";
    return e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? e.getAsString() : e.toString();
  }

  static JsonObject member(JsonObject o, String key) {
    JsonElement e = o == null ? null : o.get(key);
    return e != null && e.isJsonObject() ? e.getAsJsonObject() : null;
  }

  /** One string, asked by form elicitation. */
  static String field(Ctx ctx, String message, String key) throws MrtrException {
    JsonObject content = member(ctx.elicit(message, form(key)), "content");
    JsonElement value = content == null ? null : content.get(key);
    return value == null || value.isJsonNull() ? "" : value.isJsonPrimitive() ? value.getAsString() : value.toString();
  }

  static JsonObject getWeather(JsonObject args, Ctx ctx) throws MrtrException {
    return text(str(args, "location") + ": 22 degrees " + field(ctx, "Which units?", "units"));
  }

  static JsonObject bookTrip(JsonObject args, Ctx ctx) throws MrtrException {
    String destination = str(args, "destination");
    String date = field(ctx, "When do you fly to " + destination + "?", "date");
    String seat = field(ctx, "Which seat on " + date + "?", "seat"); // asked once the date is known: a second round
    return text(destination + " on " + date + ", seat " + seat);
  }

  static JsonObject summarize(JsonObject args, Ctx ctx) throws MrtrException {
    JsonObject prompt = obj("role", "user");
    JsonObject said = obj("type", "text");
    said.addProperty("text", "Summarise: " + str(args, "text"));
    prompt.add("content", said);
    JsonArray messages = new JsonArray();
    messages.add(prompt);
    JsonObject params = new JsonObject();
    params.add("messages", messages);
    params.addProperty("maxTokens", 50);
    JsonObject content = member(ctx.sample(params), "content");
    JsonElement summary = content == null ? null : content.get("text");
    return text("summary: " + (summary == null || summary.isJsonNull() ? "" : summary.getAsString()));
  }

  static JsonObject listRoots(JsonObject args, Ctx ctx) throws MrtrException {
    JsonElement roots = ctx.roots().get("roots");
    List<String> uris = new ArrayList<>();
    if (roots != null && roots.isJsonArray()) {
      for (JsonElement root : roots.getAsJsonArray()) uris.add(str(root.isJsonObject() ? root.getAsJsonObject() : null, "uri"));
    }
    return text(String.join(", ", uris));
  }

  static JsonObject review(JsonObject args, Ctx ctx) throws MrtrException {
    String pr = str(args, "pr");
    String focus = field(ctx, "What should the review of " + pr + " focus on?", "focus");
    JsonObject said = obj("type", "text");
    said.addProperty("text", "Review " + pr + ": " + focus);
    JsonObject message = obj("role", "user");
    message.add("content", said);
    JsonArray messages = new JsonArray();
    messages.add(message);
    JsonObject result = new JsonObject();
    result.add("messages", messages);
    return result;
  }

  static JsonObject notes(JsonObject args, Ctx ctx) throws MrtrException {
    String uri = member(ctx.request(), "params").get("uri").getAsString();
    String day = uri.startsWith("notes://") ? uri.substring("notes://".length()) : uri;
    String topic = field(ctx, "Notes of " + day + " on which topic?", "topic");
    JsonObject content = obj("uri", uri);
    content.addProperty("mimeType", "text/plain");
    content.addProperty("text", "notes on " + topic);
    JsonArray contents = new JsonArray();
    contents.add(content);
    JsonObject result = new JsonObject();
    result.add("contents", contents);
    return result;
  }

  /** 2025-11-25 (the legacy bridge): nothing to shed, answered at once. On 2026-07-28 the server sheds it. */
  static JsonObject reserve(JsonObject args, Ctx ctx) {
    return text("table " + str(args, "table") + " reserved");
  }

  /**
   * A URL-mode elicitation; the answer is an accept without content. 2026-07-28 has no
   * elicitationId; 2025-11-25 needs one (the same on every replay of the call: the question is pinned).
   */
  static JsonObject signIn(JsonObject args, Ctx ctx) throws MrtrException {
    JsonObject params = obj("mode", "url");
    params.addProperty("message", "Sign in");
    params.addProperty("url", SIGN_IN);
    JsonObject meta = member(member(ctx.request(), "params"), "_meta");
    if (meta == null || !meta.has("io.modelcontextprotocol/protocolVersion")) {
      JsonElement id = ctx.request().get("id");
      params.addProperty("elicitationId", "sign-in-" + (id.isJsonPrimitive() ? id.getAsString() : id.toString()));
    }
    JsonObject ask = obj("method", "elicitation/create");
    ask.add("params", params);
    String action = str(ctx.ask(ask.toString()), "action");
    return text("accept".equals(action) ? "signed in" : "not signed in: " + action);
  }

  static final Map<String, Tool> TOOLS = new LinkedHashMap<>();
  static final Map<String, JsonObject> SCHEMAS = Map.of(
      "get_weather", strings("location"),
      "book_trip", strings("destination"),
      "summarize", strings("text"),
      "reserve", strings("table"));

  static {
    TOOLS.put("get_weather", Tools::getWeather);
    TOOLS.put("book_trip", Tools::bookTrip);
    TOOLS.put("summarize", Tools::summarize);
    TOOLS.put("list_roots", Tools::listRoots);
    TOOLS.put("reserve", Tools::reserve);
    TOOLS.put("sign_in", Tools::signIn);
  }

  /** What the lists answer ({@code tools/list}, {@code prompts/list}, …). */
  static JsonObject listing(String method) {
    JsonObject result = new JsonObject();
    JsonArray items = new JsonArray();
    switch (method) {
      case "tools/list" -> {
        for (String name : TOOLS.keySet()) {
          JsonObject tool = obj("name", name);
          tool.add("inputSchema", SCHEMAS.getOrDefault(name, strings()));
          items.add(tool);
        }
        result.add("tools", items);
      }
      case "prompts/list" -> {
        JsonObject pr = obj("name", "pr");
        pr.addProperty("required", true);
        JsonArray arguments = new JsonArray();
        arguments.add(pr);
        JsonObject prompt = obj("name", "review");
        prompt.add("arguments", arguments);
        items.add(prompt);
        result.add("prompts", items);
      }
      case "resources/templates/list" -> {
        JsonObject template = obj("uriTemplate", "notes://{day}");
        template.addProperty("name", "notes");
        items.add(template);
        result.add("resourceTemplates", items);
      }
      case "resources/list" -> result.add("resources", items);
      default -> {
        return null;
      }
    }
    return result;
  }

  /** The await-style handler a multi-round request runs, or null. */
  static Tool handler(JsonObject request) {
    String method = request.get("method").getAsString();
    JsonObject params = member(request, "params");
    JsonElement name = params == null ? null : params.get("name");
    String named = name != null && name.isJsonPrimitive() ? name.getAsString() : null;
    switch (method) {
      case "tools/call":
        return named == null ? null : TOOLS.get(named);
      case "prompts/get":
        return "review".equals(named) ? Tools::review : null;
      case "resources/read":
        JsonElement uri = params == null ? null : params.get("uri");
        return uri != null && uri.isJsonPrimitive() && uri.getAsString().startsWith("notes://") ? Tools::notes : null;
      default:
        return null;
    }
  }
}
