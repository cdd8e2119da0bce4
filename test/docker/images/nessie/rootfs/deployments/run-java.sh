#!/usr/bin/env bash
# Starts the Quarkus runner jar in the foreground (exec: SIGTERM reaches the JVM), with the
# container-aware heap share the upstream run-java.sh uses and the caller's extra JVM flags.
# bash, not sh: dash drops environment variables whose names are not identifiers, and Quarkus
# settings come as such (nessie.version.store.type=…).
set -e
# shellcheck disable=SC2086 # the options are word lists by design
exec java -XX:MaxRAMPercentage=80.0 -Djava.awt.headless=true ${JAVA_OPTS:-} ${JAVA_OPTS_APPEND:-} -jar "$JAVA_APP_JAR" "$@"
