package dev.mrtr;

import java.lang.reflect.InvocationTargetException;
import mrtr.MrtrException;

/**
 * The rule, code and sentence of any {@link MrtrException}: UniFFI gives each area's subclass
 * {@code getRule()}, {@code getCode()}, {@code getDetail()} and {@code getData()} but the base class none, so they are
 * read by name (every area has them, so a new area needs nothing here).
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
}
