package dev.mrtr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What the docs say of this package is what it is (issue #46): the README's signatures are those of
 * the compiled {@link Mrtr}, every one of them, and the install docs name the jar's runtime
 * dependencies at the versions its pom pins.
 */
class DocsTest {
  static final Path README = Path.of("README.md");
  static final Path INSTALL = Path.of("..", "docs", "install.md");

  /**
   * The README's block that begins {@code // dev.mrtr.Mrtr} holds one line per public function (and
   * constant) of {@link Mrtr}, as {@link #signature} writes it, in any order, with comment lines
   * between them: no function missing, none that is not there.
   */
  @Test
  void theReadmeListsEveryFunctionWithItsSignature() throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    Matcher block = Pattern.compile("```java\n(// dev\\.mrtr\\.Mrtr\\b.*?)```", Pattern.DOTALL).matcher(readme);
    assertTrue(block.find(), "README.md has a java block beginning `// dev.mrtr.Mrtr`");
    List<String> listed = block.group(1).lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("//"))
        .toList();
    TreeSet<String> written = new TreeSet<>(listed);
    assertEquals(listed.size(), written.size(), "a signature listed twice in README.md");

    TreeSet<String> actual = new TreeSet<>();
    for (Method m : Mrtr.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) actual.add(signature(m));
    }
    for (Field f : Mrtr.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers())) actual.add(type(f.getGenericType()) + " " + f.getName() + " = " + f.get(null) + ";");
    }
    TreeSet<String> missing = new TreeSet<>(actual);
    missing.removeAll(written);
    TreeSet<String> stale = new TreeSet<>(written);
    stale.removeAll(actual);
    assertTrue(missing.isEmpty() && stale.isEmpty(),
        "README.md's signatures differ from dev.mrtr.Mrtr's.\nNot in README.md:\n  " + String.join("\n  ", missing)
            + "\nIn README.md, not in Mrtr:\n  " + String.join("\n  ", stale));
  }

  /**
   * {@code Ret name(Type param, …) throws E;}, after {@code <X extends Bound> } for a generic one:
   * how the README writes a function of {@link Mrtr}.
   */
  static String signature(Method m) {
    String params = Arrays.stream(m.getParameters())
        .map(p -> {
          assertTrue(p.isNamePresent(), "compiled without -parameters: " + m);
          return type(p.getParameterizedType()) + " " + p.getName();
        })
        .collect(Collectors.joining(", "));
    String throwsClause = m.getGenericExceptionTypes().length == 0 ? ""
        : " throws " + Arrays.stream(m.getGenericExceptionTypes()).map(DocsTest::type).collect(Collectors.joining(", "));
    String generic = m.getTypeParameters().length == 0 ? ""
        : "<" + Arrays.stream(m.getTypeParameters())
            .map(v -> v.getName() + " extends " + Arrays.stream(v.getBounds()).map(DocsTest::type).collect(Collectors.joining(" & ")))
            .collect(Collectors.joining(", ")) + "> ";
    return generic + type(m.getGenericReturnType()) + " " + m.getName() + "(" + params + ")" + throwsClause + ";";
  }

  /** A type as Java source names it, with the imports of package {@code mrtr}, java.util and dev.mrtr. */
  static String type(Type t) {
    if (t instanceof ParameterizedType p) {
      return type(p.getRawType()) + "<"
          + Arrays.stream(p.getActualTypeArguments()).map(DocsTest::type).collect(Collectors.joining(", ")) + ">";
    }
    if (t instanceof Class<?> c) {
      if (c.isArray()) return type(c.getComponentType()) + "[]";
      return c.getEnclosingClass() == null ? c.getSimpleName() : type(c.getEnclosingClass()) + "." + c.getSimpleName();
    }
    return t.getTypeName();
  }

  /**
   * docs/install.md and the README name each runtime dependency of the jar as {@code
   * groupId:artifactId:version}, at the version pom.xml pins, and no other version of it.
   */
  @Test
  void theInstallDocsNameTheJarsDependenciesAtThePomsVersions() throws Exception {
    Map<String, String> dependencies = runtimeDependencies(Path.of("pom.xml"));
    assertEquals(List.of("org.jetbrains.kotlin:kotlin-stdlib", "net.java.dev.jna:jna"), List.copyOf(dependencies.keySet()),
        "the jar's runtime dependencies changed: say so in docs/install.md and README.md, then here");
    for (Path doc : List.of(INSTALL, README)) {
      String text = Files.readString(doc, StandardCharsets.UTF_8);
      dependencies.forEach((name, version) -> {
        String pinned = name + ":" + version;
        assertTrue(text.contains(pinned), doc + " does not name " + pinned);
        Matcher any = Pattern.compile(Pattern.quote(name) + ":([0-9][^`\\s,;)]*)").matcher(text);
        while (any.find()) assertEquals(version, any.group(1), doc + " names " + name + " at another version");
      });
    }
  }

  /** The dependencies of {@code pom} that the jar needs at run time, {@code group:artifact} to version. */
  static Map<String, String> runtimeDependencies(Path pom) throws Exception {
    Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    Map<String, String> properties = new LinkedHashMap<>();
    for (Element p : children(child(project, "properties"))) properties.put(p.getTagName(), p.getTextContent().strip());
    Map<String, String> found = new LinkedHashMap<>();
    for (Element d : children(child(project, "dependencies"))) {
      Element scope = child(d, "scope");
      if (scope != null && !List.of("compile", "runtime").contains(scope.getTextContent().strip())) continue;
      String version = child(d, "version").getTextContent().strip();
      Matcher property = Pattern.compile("\\$\\{([^}]+)}").matcher(version);
      if (property.matches()) version = properties.get(property.group(1));
      assertFalse(version == null || version.isEmpty(), "no version for " + child(d, "artifactId").getTextContent());
      found.put(child(d, "groupId").getTextContent().strip() + ":" + child(d, "artifactId").getTextContent().strip(), version);
    }
    return found;
  }

  private static Element child(Element parent, String tag) {
    return children(parent).stream().filter(e -> e.getTagName().equals(tag)).findFirst().orElse(null);
  }

  private static List<Element> children(Element parent) {
    List<Element> out = new ArrayList<>();
    if (parent == null) return out;
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE) out.add((Element) nodes.item(i));
    }
    return out;
  }
}
