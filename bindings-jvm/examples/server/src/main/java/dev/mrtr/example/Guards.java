package dev.mrtr.example;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import mrtr.ReplayGuard;

/**
 * Replay guards: a sealed state opens once (first use wins; a second is {@code state-replayed}).
 * The core asks the guard last, after the state opened for this request, with the state's id and
 * expiry (seconds since the epoch).
 *
 * <p>A guard only works when every instance that may get a retry asks the same store. One
 * instance: {@link Memory}. Several: a store they share ({@link Remote} asks another instance's
 * memory over HTTP, as a fleet would ask Redis {@code SET NX EX} or a database's unique key), or
 * none at all (a state then opens again until it expires: fine for tools without side effects).
 * A guard in each instance's own memory would catch a replay only when it lands on the instance
 * that saw the state first.
 */
final class Guards {
  private Guards() {}

  /** This process's memory: the ids seen, until their expiry. */
  static final class Memory implements ReplayGuard {
    private final Map<String, Long> seen = new ConcurrentHashMap<>();
    private final AtomicLong uses = new AtomicLong();

    @Override
    public boolean firstUse(String stateId, long expiry) {
      if (uses.incrementAndGet() % 1024 == 0) prune(System.currentTimeMillis() / 1000);
      return seen.putIfAbsent(stateId, expiry) == null;
    }

    private void prune(long now) {
      for (Iterator<Map.Entry<String, Long>> it = seen.entrySet().iterator(); it.hasNext(); ) {
        if (it.next().getValue() < now) it.remove();
      }
    }
  }

  /**
   * The guard of another instance ({@code McpServer --serve-guard}), asked over HTTP at {@code url}:
   * {@code POST {"stateId", "expiry"}} answers {@code {"firstUse": true|false}}. A guard that cannot
   * be asked fails the open (the exception comes back from it): fail closed.
   */
  static final class Remote implements ReplayGuard {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI url;

    Remote(String url) {
      this.url = URI.create(url);
    }

    @Override
    public boolean firstUse(String stateId, long expiry) {
      JsonObject use = new JsonObject();
      use.addProperty("stateId", stateId);
      use.addProperty("expiry", expiry);
      HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5))
          .header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(use.toString())).build();
      try {
        HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) throw new IllegalStateException("the replay guard at " + url + " answered HTTP " + answer.statusCode());
        return JsonParser.parseString(answer.body()).getAsJsonObject().get("firstUse").getAsBoolean();
      } catch (IOException e) {
        throw new IllegalStateException("the replay guard at " + url + " cannot be asked: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while asking the replay guard", e);
      }
    }
  }
}
