// Quickstart: a client calling the `greet` tool of Server.java.
//
// A `Session` writes the request (a fresh id, the `_meta` of what the client
// declares once); an `Operation` carries it through every round: send each
// request `pollTransmit` gives, hand back its response (head, body, end), then
// read `pollEvent` and answer each question (here the user, on the terminal).
// The operation sends the retry with a new id, the answers and the exact
// `requestState`, until the final result. One exchange at a time, over the
// JDK's HttpClient.
//
//   java -cp "$CLASSPATH" Client.java http://127.0.0.1:8000/mcp
import dev.mrtr.Mrtr;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mrtr.MessageKind;
import mrtr.MrtrException;
import mrtr.Operation;
import mrtr.OperationEvent;
import mrtr.Session;

public class Client {
  static final String PROTOCOL = "2026-07-28";
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final BufferedReader TERMINAL = new BufferedReader(new InputStreamReader(System.in));
  // Messages are JSON text in mrtr: in your client, read them with your JSON library.
  // Each question of an input_required round, as the core words it:
  // "<key>":{"method":"elicitation/create","params":{"mode":"form","message":"<text>","requestedSchema":{…}}}
  static final Pattern QUESTION =
      Pattern.compile("\"([^\"]+)\":\\{\"method\":\"elicitation/create\",\"params\":\\{[^{}]*?\"message\":\"((?:[^\"\\\\]|\\\\.)*)\"");
  static final Pattern TEXT = Pattern.compile("\"text\":\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The answer to each question of the server (an elicitation here), from the terminal. */
  static void askTheUser(Operation call, String questions) throws IOException, MrtrException {
    for (Matcher question = QUESTION.matcher(questions); question.find(); ) {
      System.out.print(unquote(question.group(2)) + " ");
      System.out.flush();
      String name = TERMINAL.readLine(); // null: the terminal closed, the user declines
      String answer = name == null ? "{\"action\":\"decline\"}" : "{\"action\":\"accept\",\"content\":{\"name\":" + quote(name) + "}}";
      call.answer(question.group(1), answer, now());
    }
  }

  /** Sends one request of the operation and hands its response back: head, body, end. */
  static void exchange(Operation call, mrtr.HttpRequest send) throws InterruptedException, MrtrException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(send.getUrl()));
    send.getHeaders().forEach(request::header);
    String body = send.getBodyJson();
    request.method(send.getMethod(), body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
    try {
      HttpResponse<byte[]> response = HTTP.send(request.build(), BodyHandlers.ofByteArray());
      Map<String, String> headers = new HashMap<>();
      response.headers().map().forEach((name, values) -> headers.put(name, String.join(", ", values)));
      call.handleHead(send.getExchange(), response.statusCode(), headers, now());
      call.handleBody(send.getExchange(), response.body(), now());
    } catch (IOException e) {
      // No response, or a cut one: it ended all the same, and the operation decides what follows.
    }
    call.handleEnd(send.getExchange(), now());
  }

  public static void main(String[] args) throws IOException, InterruptedException, MrtrException {
    String config = "{\"mode\":\"" + PROTOCOL + "\",\"url\":" + quote(args[0]) + "}";
    try (Session session = new Session("{\"capabilities\":{\"elicitation\":{}}}");
        Operation call = new Operation(config, session.callTool("greet", null), now())) {
      while (true) {
        mrtr.HttpRequest send = call.pollTransmit();
        if (send != null) {
          exchange(call, send);
          continue;
        }
        OperationEvent event = call.pollEvent();
        if (event instanceof OperationEvent.InputRequired asked) {
          askTheUser(call, asked.getRequestsJson());
        } else if (event instanceof OperationEvent.Violation broken) {
          System.err.println("the server broke " + broken.getRule() + ": " + broken.getMessage());
        } else if (event instanceof OperationEvent.Failed failed) {
          throw new IllegalStateException(failed.getRule() + ": " + failed.getMessage());
        } else if (event instanceof OperationEvent.Done done) {
          String response = done.getResponseJson();
          if (Mrtr.classify(response, PROTOCOL).getKind() == MessageKind.ERROR) {
            throw new IllegalStateException("the server answered " + response);
          }
          Matcher text = TEXT.matcher(response);
          System.out.println(text.find() ? unquote(text.group(1)) : response);
          return;
        } else if (event == null) { // nothing to send or read: wait for the time the operation names
          Long due = call.pollTimeout();
          if (due == null) throw new IllegalStateException("the operation waits for nothing");
          Thread.sleep(Math.max(0, due - now()));
          call.handleTimeout(now());
        }
      }
    }
  }

  static long now() {
    return System.currentTimeMillis();
  }

  /** {@code text} as a JSON string. */
  static String quote(String text) {
    StringBuilder json = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') json.append('\\').append(c);
      else if (c < 0x20) json.append(String.format("\\u%04x", (int) c));
      else json.append(c);
    }
    return json.append('"').toString();
  }

  /** The text of a JSON string's inside. */
  static String unquote(String json) {
    return Pattern.compile("\\\\(u[0-9a-fA-F]{4}|.)").matcher(json).replaceAll(escape -> {
      String e = escape.group(1);
      String c = switch (e) {
        case "n" -> "\n";
        case "r" -> "\r";
        case "t" -> "\t";
        case "b" -> "\b";
        case "f" -> "\f";
        default -> e.length() == 5 ? String.valueOf((char) Integer.parseInt(e.substring(1), 16)) : e;
      };
      return Matcher.quoteReplacement(c);
    });
  }
}
