#!/usr/bin/env bash
# kafka-run-class.sh MAIN [ARGS…]: a Java main of /opt/kafka/libs with the usual KAFKA_* JVM
# options (the distribution's script, reduced to what this image uses).
set -euo pipefail
base=/opt/kafka
heap="${KAFKA_HEAP_OPTS:--Xmx256M}"
perf="${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"
log4j="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$base/config/tools-log4j2.yaml}"
# shellcheck disable=SC2086 # the option variables are word lists by design
exec java $heap $perf $log4j ${KAFKA_OPTS:-} -cp "$base/libs/*" "$@"
