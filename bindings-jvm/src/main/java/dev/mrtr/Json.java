package dev.mrtr;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON string literals for the builders, and the members of the few flat objects the core answers
 * where Java wants a type ({@code {response, status}}, a refusal's {@code {rule, area, code,
 * message, data}}). The builders write a handful of flat fields and those answers are the core's own
 * compact JSON, so a JSON library (and a runtime dependency for every user) would buy nothing here;
 * every message the package reads or writes beyond these goes through the core.
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

  /**
   * The members of the JSON object {@code object} (as the core writes it: no space outside
   * strings), each value as its JSON text, in order.
   */
  static Map<String, String> members(String object) {
    Map<String, String> members = new LinkedHashMap<>();
    int i = expect(object, 0, '{');
    if (object.charAt(i) == '}') return members;
    while (true) {
      int keyEnd = skip(object, i);
      String key = unquote(object.substring(i, keyEnd));
      int valueStart = expect(object, keyEnd, ':');
      int valueEnd = skip(object, valueStart);
      members.put(key, object.substring(valueStart, valueEnd));
      if (object.charAt(valueEnd) == '}') return members;
      i = expect(object, valueEnd, ',');
    }
  }

  /** The string the JSON string literal {@code literal} holds; null for {@code null}. */
  static String unquote(String literal) {
    if (literal.equals("null")) return null;
    if (literal.length() < 2 || literal.charAt(0) != '"' || literal.charAt(literal.length() - 1) != '"') {
      throw new IllegalStateException("not a JSON string: " + literal);
    }
    StringBuilder out = new StringBuilder(literal.length());
    for (int i = 1; i < literal.length() - 1; i++) {
      char c = literal.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = literal.charAt(++i);
      switch (e) {
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append((char) Integer.parseInt(literal.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> out.append(e); // '"', '\\', '/'
      }
    }
    return out.toString();
  }

  /** The index after {@code c} at {@code i} of {@code text}. */
  private static int expect(String text, int i, char c) {
    if (i >= text.length() || text.charAt(i) != c) {
      throw new IllegalStateException("not the core's JSON at " + i + " (" + c + " expected): " + text);
    }
    return i + 1;
  }

  /** The index after the JSON value starting at {@code start} of {@code text}. */
  private static int skip(String text, int start) {
    int depth = 0;
    boolean inString = false;
    for (int i = start; i < text.length(); i++) {
      char c = text.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
          if (depth == 0) return i + 1;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return i; // the end of the enclosing object: a scalar ended here
        if (--depth == 0) return i + 1;
      } else if (c == ',' && depth == 0) {
        return i;
      }
    }
    throw new IllegalStateException("not the core's JSON: " + text);
  }
}
