package dev.mrtr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import mrtr.conformance.ConformanceRunnerKt;
import org.junit.jupiter.api.Test;

/**
 * The whole conformance corpus on the JVM: the Kotlin runner (shared with {@code
 * scripts/conformance uniffi-kotlin}) produces one outcome line per case through this package's
 * native library, and the one judge ({@code mrtr-conformance judge}) compares them with the
 * corpus's expectations. Runners produce, one judge compares.
 */
class CorpusTest {
  @Test
  void everyCasePassesTheJudge() throws Exception {
    File corpus = new File(System.getProperty("mrtr.corpus"));
    List<String> lines = new ArrayList<>();
    ConformanceRunnerKt.runCorpus(corpus, line -> {
      lines.add(line);
      return kotlin.Unit.INSTANCE;
    });
    assertTrue(lines.size() > 1000, "the corpus has over 1000 cases, the runner gave " + lines.size());

    // The judge reads the expectations of the same corpus the runner ran.
    ProcessBuilder judging =
        new ProcessBuilder(System.getProperty("mrtr.judge"), "judge", "--name", "jvm").redirectErrorStream(true);
    judging.environment().put("MRTR_CONFORMANCE_DIR", corpus.getAbsolutePath());
    Process judge = judging.start();
    CompletableFuture<String> verdict = CompletableFuture.supplyAsync(() -> readAll(judge.getInputStream()));
    try (OutputStream in = judge.getOutputStream()) {
      for (String line : lines) in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
    String said = verdict.get();
    System.out.print(said);
    assertEquals(0, judge.waitFor(), said);
    assertTrue(said.contains(lines.size() + " passed, 0 failed"), said);
  }

  private static String readAll(InputStream in) {
    try (in) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
