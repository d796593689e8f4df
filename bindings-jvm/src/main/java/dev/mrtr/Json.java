package dev.mrtr;

/**
 * JSON string literals for the builders, which write a handful of flat fields: a JSON library (and
 * a runtime dependency for every user) would buy nothing here; every message the package reads or
 * writes beyond these goes through the core.
 */
final class Json {
  private Json() {}

  /** {@code text} as a JSON string literal (RFC 8259: quote, backslash, control characters). */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
