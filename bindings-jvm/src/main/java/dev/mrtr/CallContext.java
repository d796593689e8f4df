package dev.mrtr;

/**
 * Who makes one request and when (seconds): the {@code callJson} of {@link
 * mrtr.KeyRing#startToolReplay} and {@link mrtr.KeyRing#resumeRound}. A sealed state is bound to
 * its principal (another's retry is {@code state-wrong-subject}); anonymous is chosen explicitly.
 *
 * @param subject the authenticated principal, or null for {@link #anonymous}
 * @param nowSeconds the time of the request, seconds since the Unix epoch
 */
public record CallContext(String subject, long nowSeconds) {
  public CallContext {
    if (subject != null && subject.isEmpty()) throw new IllegalArgumentException("subject must not be empty");
    if (nowSeconds < 0) throw new IllegalArgumentException("nowSeconds must not be negative");
  }

  /** A request of the authenticated principal {@code subject} at {@code nowSeconds}. */
  public static CallContext of(String subject, long nowSeconds) {
    if (subject == null) throw new IllegalArgumentException("subject is null: use anonymous()");
    return new CallContext(subject, nowSeconds);
  }

  /** A request with no principal, at {@code nowSeconds}: only for a server without logins. */
  public static CallContext anonymous(long nowSeconds) {
    return new CallContext(null, nowSeconds);
  }

  /** The context as the core reads it. */
  public String toJson() {
    String who = subject == null ? "\"anonymous\":true" : "\"subject\":" + Json.quote(subject);
    return "{" + who + ",\"now\":" + nowSeconds + "}";
  }
}
