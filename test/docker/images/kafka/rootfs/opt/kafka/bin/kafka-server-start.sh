#!/usr/bin/env bash
# kafka-server-start.sh server.properties: the broker/controller in the foreground.
set -euo pipefail
export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G}"
export KAFKA_LOG4J_OPTS="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/opt/kafka/config/log4j2.yaml}"
exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$@"
