#!/usr/bin/env bash
# The JVM package (bindings-jvm): `mvn install` builds the native library with
# cargo (profile dist, as the jar ships it), compiles the UniFFI Kotlin and the
# Java façade, runs the JUnit tests (the Java API, the README's example
# compiled from the README, the whole corpus through the one judge) and
# packages the jar, into ~/.m2 where the Java server of the peers step
# (bindings-jvm/examples/server) finds it. The jar alone, as a user's program
# sees it (a plain class path, its own library, the shipped build), is
# scripts/release's jvm kind, which CI runs after the tests.
set -euo pipefail
# Maven 3.8 writes ANSI resets even in batch mode; the log stays plain text.
mvn() { command mvn -q -B "$@" 2>&1 | sed 's/\x1b\[0m//g'; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root/bindings-jvm"

echo "== JVM: mvn install (native library, Java API, README example, corpus, jar; into ~/.m2 for the Java peers)"
mvn install
