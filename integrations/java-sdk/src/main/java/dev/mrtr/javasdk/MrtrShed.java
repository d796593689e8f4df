package dev.mrtr.javasdk;

import java.util.Map;

/**
 * What a load-shedding tool ({@link MrtrStatelessTransport#sheddingTool}) is given: the data it held
 * on an earlier request of its call, or null on the first, and {@link #later} to answer this
 * request {@code input_required} with a sealed {@code requestState} and no {@code inputRequests}
 * (SEP-2322, Use Case 2): the client retries at once, with that state, and whichever instance gets
 * the retry goes on from the held data.
 */
public final class MrtrShed {
  /** The tool defers: {@link #later} was called. An {@link Error}, so a {@code catch (Exception e)} lets it by. */
  static final class Later extends Error {
    private static final long serialVersionUID = 1L;
    final transient Map<String, Object> data;

    Later(Map<String, Object> data) {
      super("the tool defers to a retry", null, false, false);
      this.data = data;
    }
  }

  private final Map<String, Object> held;
  private final int round;

  MrtrShed(Map<String, Object> held, int round) {
    this.held = held;
    this.round = round;
  }

  /** The data sealed at the last round of this call, or null on its first request. */
  public Map<String, Object> held() {
    return held;
  }

  /** How many rounds came before this request. */
  public int round() {
    return round;
  }

  /** Ends this request: {@code input_required} carrying only a sealed state with {@code data}. Does not return. */
  public Map<String, Object> later(Map<String, Object> data) {
    throw new Later(data);
  }
}
