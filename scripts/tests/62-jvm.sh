#!/usr/bin/env bash
# The JVM package (bindings-jvm): `mvn install` builds the native library with
# cargo (profile dist, as the jar ships it), compiles the UniFFI Kotlin and the
# Java façade, runs the JUnit tests (the Java API, the README's example
# compiled from the README, the whole corpus through the one judge) and
# packages the jar, into ~/.m2 where the Java server of the peers step
# (bindings-jvm/examples/server) finds it; then the Java quickstart's server and
# client (bindings-jvm/examples/quickstart) run on the jar. The jar alone, as a user's program
# sees it (a plain class path, its own library, the shipped build), is
# scripts/release's jvm kind, which CI runs after the tests.
set -euo pipefail
# Maven 3.8 writes ANSI resets even in batch mode; the log stays plain text.
mvn() { command mvn -q -B "$@" 2>&1 | sed 's/\x1b\[0m//g'; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root/bindings-jvm"

echo "== JVM: mvn install (native library, Java API, README example, corpus, jar; into ~/.m2 for the Java peers)"
mvn install

# The quickstart (docs/quickstart/java.md) as a newcomer runs it: the two files
# by the JDK's single-file source launch, on the class path of the jar and its
# runtime dependencies; the server on a free port of 127.0.0.1, the client
# against it with `Ada` on its stdin; passes only on its final `Hello, Ada!`.
echo "== JVM: the quickstart (Server.java on a free port, Client.java answering Ada; the page quotes both)"
out="$root/bindings-jvm/target/quickstart"
rm -rf "$out" && mkdir -p "$out"
jars=(target/mrtr-*.jar)
[ "${#jars[@]}" -eq 1 ] || { echo "quickstart: not one jar in bindings-jvm/target: ${jars[*]}" >&2; exit 1; }
mvn org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath -DincludeScope=runtime -Dmdep.outputFile="$out/classpath"
cp="$root/bindings-jvm/${jars[0]}:$(cat "$out/classpath")"
java -cp "$cp" examples/quickstart/Server.java 0 >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 600); do
  url=$(sed -n 's|^listening on \(http://127\.0\.0\.1:[0-9]*/mcp\)$|\1|p' "$out/server.log")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { echo "quickstart: the server did not start:" >&2; cat "$out/server.log" >&2; exit 1; }
said=$(echo Ada | timeout 120 java -cp "$cp" examples/quickstart/Client.java "$url" 2>"$out/client.err") || {
  echo "quickstart: the client failed:" >&2; cat "$out/client.err" "$out/server.log" >&2; exit 1; }
if [ "$said" != "What is your name? Hello, Ada!" ] || grep -q "broke" "$out/client.err"; then
  echo "quickstart: the client printed, instead of the question and \`Hello, Ada!\`:" >&2; echo "$said" >&2; cat "$out/client.err" >&2; exit 1
fi
echo "$url: $said"
kill "$server" && wait "$server" 2>/dev/null || true
trap - EXIT
python3 "$root/scripts/quickstart-docs" java
