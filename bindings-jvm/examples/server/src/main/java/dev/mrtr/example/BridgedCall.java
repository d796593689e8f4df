package dev.mrtr.example;

import com.google.gson.JsonObject;
import dev.mrtr.Mrtr;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import mrtr.MrtrException;
import mrtr.ToolBridge;

/**
 * The legacy bridge: one {@code 2025-11-25} call of an await-style tool over the core's
 * {@link ToolBridge}. Its questions reach the client as server requests on the call's event stream
 * (each associated with the call, SEP-2260); the client POSTs each answer, which {@link #deliver}
 * hands to the bridge; each round replays the tool from the answers collected so far. The call
 * lives in this instance's memory, on its open stream: the design multi-round requests replace,
 * here so that one handler serves both generations of clients.
 */
final class BridgedCall implements AutoCloseable {
  private static final long START = System.nanoTime();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Tools.Tool tool;
  private final JsonObject request;
  private final ToolBridge bridge;
  private final Object lock = new Object();
  private boolean answered;

  BridgedCall(Tools.Tool tool, JsonObject request) throws MrtrException {
    this.tool = tool;
    this.request = request;
    byte[] key = new byte[8];
    RANDOM.nextBytes(key);
    this.bridge = new ToolBridge(request.toString(), HexFormat.of().formatHex(key), null);
  }

  /** A monotonic clock in milliseconds, as the bridge's deadlines read it. */
  static long clock() {
    return (System.nanoTime() - START) / 1_000_000;
  }

  /** The ids (as text) of the server requests waiting for the client's answers. */
  List<String> pending() throws MrtrException {
    return bridge.pending();
  }

  /**
   * A JSON-RPC response the client POSTed to one of {@link #pending}. An answer that does not fit
   * its question raises {@code retry-input-response-invalid} (the round still waits).
   */
  void deliver(String response) throws MrtrException {
    synchronized (lock) {
      if (bridge.handleAnswer(response, clock())) {
        answered = true;
        lock.notifyAll();
      }
    }
  }

  /** Writes the call's event stream to {@code out}, in order, until its final response. */
  void stream(OutputStream out) throws IOException, MrtrException {
    while (!bridge.isDone()) {
      if (!bridge.pending().isEmpty()) {
        await();
      } else {
        round();
      }
      String text;
      while ((text = bridge.pollWrite()) != null) out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }

  private void round() throws MrtrException {
    synchronized (lock) {
      answered = false; // the last round's completion: the next one's answers come after its asks
    }
    JsonObject args = Tools.member(Tools.member(request, "params"), "arguments");
    try {
      // Its questions go on the stream, or its result (or a refusal, even one it caught) ends the call.
      Mrtr.runToolRound(McpServer.packaged(tool, request), bridge, request.toString(),
          args == null ? null : args.toString(), clock());
    } catch (MrtrException e) {
      bridge.refuse(Mrtr.rule(e), Mrtr.detail(e), Mrtr.data(e)); // the tool's own refusal
    }
  }

  private void await() throws MrtrException {
    Long deadline = bridge.pollTimeout();
    synchronized (lock) {
      while (!answered) {
        long left = deadline == null ? 1000 : deadline - clock();
        if (left <= 0) break;
        try {
          lock.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (deadline == null) return;
      }
      if (answered) {
        answered = false;
        return;
      }
    }
    bridge.handleTimeout(clock());
  }

  @Override
  public void close() {
    bridge.close();
  }
}
