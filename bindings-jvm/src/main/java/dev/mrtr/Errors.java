package dev.mrtr;

import java.lang.reflect.InvocationTargetException;
import java.util.Map;
import mrtr.MrtrException;

/**
 * The rule, code and sentence of any {@link MrtrException}: UniFFI gives each area's subclass
 * {@code getRule()}, {@code getCode()}, {@code getDetail()} and {@code getData()} but the base class none, so they are
 * read by name (every area has them, so a new area needs nothing here). And a check's refusal,
 * which UniFFI answers as JSON, thrown as the exception of its area.
 */
final class Errors {
  private Errors() {}

  static Object field(MrtrException e, String getter) {
    try {
      return e.getClass().getMethod(getter).invoke(e);
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException bug) {
      throw new IllegalStateException("an MrtrException without " + getter + ": " + e.getClass(), bug);
    }
  }

  /**
   * Nothing when {@code refusal} is null (the check passed); else throws it: the core's JSON of an
   * error ({@code {rule, area, code, message, data}}) as the {@link MrtrException} of its area.
   */
  static void raise(String refusal) throws MrtrException {
    if (refusal == null) return;
    Map<String, String> r = Json.members(refusal);
    String code = r.get("code");
    throw Areas.exception(Json.unquote(r.get("area")), Json.unquote(r.get("rule")),
        code == null || code.equals("null") ? null : Integer.valueOf(code), Json.unquote(r.get("message")),
        r.get("data"));
  }
}
