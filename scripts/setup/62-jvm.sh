#!/usr/bin/env bash
# The JVM package (bindings-jvm): a JDK (17 or later) and Maven, from Debian
# when missing. Maven fetches the package's plugins and dependencies from
# Maven Central into ~/.m2 on its first run (pinned in bindings-jvm/pom.xml,
# each at a version that runs on Debian's Maven 3.8). Idempotent.
set -euo pipefail
missing=()
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || missing+=(maven)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -q)
  echo "apt-get install ${missing[*]}"
  if ! "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    "${apt[@]}" update >/dev/null
    "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi
# Whole outputs first: with pipefail, `| head -1` closing the pipe would fail the command.
java_said=$(java -version 2>&1)
mvn_said=$(mvn -v -B 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g')
echo "${java_said%%$'\n'*}"
echo "${mvn_said%%$'\n'*}"
