#!/usr/bin/env bash
# The JVM package (bindings-jvm): `mvn install` builds the native library with
# cargo (release, as the jar ships it), compiles the UniFFI Kotlin and the
# Java façade, runs the JUnit tests (the Java API, the README's example
# compiled from the README, the whole corpus through the one judge) and
# packages the jar, into ~/.m2 where the Java server of the peers step
# (bindings-jvm/examples/server) finds it. Then the jar alone, as a user's program sees it: a Java
# source run with the jar and its two dependencies on the class path, no
# library path, loads the native library the jar carries, and that library
# is the shipped one (no test-vector exports).
set -euo pipefail
# Maven 3.8 writes ANSI resets even in batch mode; the log stays plain text.
mvn() { command mvn -q -B "$@" 2>&1 | sed 's/\x1b\[0m//g'; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root/bindings-jvm"
version=$("$root/scripts/versions")
jar="target/mrtr-$version.jar"

echo "== JVM: mvn install (native library, Java API, README example, corpus, jar; into ~/.m2 for the Java peers)"
mvn install

echo "== JVM: the jar on a plain class path loads the library it carries"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mvn org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath \
  -Dmdep.includeScope=runtime -Dmdep.outputFile="$tmp/classpath"
cat >"$tmp/Check.java" <<'JAVA'
public class Check {
  public static void main(String[] args) throws Exception {
    String ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    System.out.println(dev.mrtr.Mrtr.classify(ping, "2026-07-28").getKind());
  }
}
JAVA
got=$(cd "$tmp" && java -cp "$root/bindings-jvm/$jar:$(cat "$tmp/classpath")" Check.java)
[ "$got" = REQUEST ] || { echo "the jar's check printed '$got', not REQUEST" >&2; exit 1; }
unzip -q -o "$jar" linux-x86-64/libmrtr_uniffi.so -d "$tmp"
if nm -D --defined-only "$tmp/linux-x86-64/libmrtr_uniffi.so" | grep -q seal_with_nonce; then
  echo "the jar's library exports a nonce seal: it is the test build" >&2
  exit 1
fi
echo "$jar: loads its own linux-x86-64/libmrtr_uniffi.so ($(du -k "$tmp/linux-x86-64/libmrtr_uniffi.so" | cut -f1) KiB), the shipped build"
