package dev.mrtr.javasdk;

import java.util.Map;

/** A tool that may shed load: its arguments and {@link MrtrShed} in, the result out (or {@link MrtrShed#later}). */
@FunctionalInterface
public interface MrtrShedHandler {
  Map<String, Object> handle(Map<String, Object> arguments, MrtrShed shed) throws Exception;
}
