package dev.mrtr;

/**
 * A deployment's settings for sealed rounds and await-style tools: the {@code settingsJson} of
 * {@link mrtr.KeyRing#startToolReplay} and {@link mrtr.KeyRing#resumeRound}, built once per server:
 * {@code ToolSettings.builder().ttlSeconds(300).build().toJson()}.
 *
 * @param ttlSeconds how long a sealed state opens after it was sealed
 * @param protocol the protocol the server speaks
 * @param pinAnswers whether an answer counts only with the state that asked for it (null: on)
 * @param maxRounds how many rounds one call may take (null: the core's default)
 */
public record ToolSettings(long ttlSeconds, String protocol, Boolean pinAnswers, Integer maxRounds) {
  public ToolSettings {
    if (ttlSeconds < 1) throw new IllegalArgumentException("ttlSeconds must be at least 1");
    if (protocol == null) throw new IllegalArgumentException("protocol is null");
    if (maxRounds != null && maxRounds < 0) throw new IllegalArgumentException("maxRounds must not be negative");
  }

  /** A builder: a state lives 300 seconds, the protocol is {@code 2026-07-28}. */
  public static Builder builder() {
    return new Builder();
  }

  /** The settings as the core reads them. */
  public String toJson() {
    return "{\"ttl\":" + ttlSeconds + ",\"protocol\":" + Json.quote(protocol)
        + (pinAnswers == null ? "" : ",\"pinAnswers\":" + pinAnswers)
        + (maxRounds == null ? "" : ",\"maxRounds\":" + maxRounds) + "}";
  }

  /** Builds {@link ToolSettings}; what is not set keeps the core's default. */
  public static final class Builder {
    private long ttlSeconds = 300;
    private String protocol = "2026-07-28";
    private Boolean pinAnswers;
    private Integer maxRounds;

    private Builder() {}

    public Builder ttlSeconds(long seconds) { this.ttlSeconds = seconds; return this; }
    public Builder protocol(String protocol) { this.protocol = protocol; return this; }
    public Builder pinAnswers(boolean pin) { this.pinAnswers = pin; return this; }
    public Builder maxRounds(int rounds) { this.maxRounds = rounds; return this; }

    /** The settings ({@link IllegalArgumentException} for a value out of range). */
    public ToolSettings build() {
      return new ToolSettings(ttlSeconds, protocol, pinAnswers, maxRounds);
    }
  }
}
