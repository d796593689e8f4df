package dev.mrtr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java example, compiled from the README's own text and run: what a reader copies works. */
class ReadmeExampleTest {
  @Test
  void theReadmeExampleRuns(@TempDir Path dir) throws Exception {
    String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
    // The example is the java block declaring class Example (another lists the signatures: DocsTest).
    Matcher block = Pattern.compile("```java\n([^`]*?public class Example\\b.*?)```", Pattern.DOTALL).matcher(readme);
    assertTrue(block.find(), "README.md has a java block declaring `public class Example`");
    Path source = dir.resolve("Example.java");
    Files.writeString(source, block.group(1), StandardCharsets.UTF_8);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean compiled = javac.getTask(diagnostics, null, null,
        List.of("-d", dir.toString(), "-cp", System.getProperty("java.class.path")), null,
        javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(source)).call();
    assertTrue(compiled, diagnostics.toString());

    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      Method main = loader.loadClass("Example").getMethod("main", String[].class);
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(out);
    }
    String[] lines = printed.toString(StandardCharsets.UTF_8).split("\n");
    out.println(String.join("\n", lines));
    assertEquals(4, lines.length);
    assertEquals("server: INPUT_REQUIRED", lines[0]);
    assertTrue(lines[1].startsWith("server: {\"jsonrpc\":\"2.0\",\"id\":\"2\"") || lines[1].startsWith("server: {\"jsonrpc\":\"2.0\",\"id\":2"), lines[1]);
    assertTrue(lines[1].contains("Hello, octocat"), lines[1]);
    assertEquals("refused: state-wrong-subject (-32602), HTTP 400", lines[2]);
    assertTrue(lines[3].startsWith("refused: protocol-version-unsupported (-32022) {"), lines[3]);
    assertTrue(lines[3].contains("\"requested\":\"2027-01-01\"") && lines[3].contains("\"supported\":[\"2026-07-28\"]"), lines[3]);
  }
}
