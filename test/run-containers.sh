#!/usr/bin/env bash
# npm run test:containers: everything that needs a Docker engine but the image lane.
#   1. the compose lane (vitest.containers.config.ts): the stack's images, then docker/compose.yaml
#      up with the README's commands, read through Trino, and down again;
#   2. the integration tests on the containers stack (THUND_STACK=containers: MinIO, the REST
#      catalog, Nessie, Kafka and moto as containers, through testcontainers).
# Without DOCKER_HOST it starts the private engine (test/docker/engine.sh; root) and leaves it running.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -z "${DOCKER_HOST:-}" ]]; then
  DOCKER_HOST="$(bash test/docker/engine.sh start | sed -n 's/^DOCKER_HOST=//p')"
  export THUND_DOCKER_CLI=/usr/bin/docker # the engine's own client
fi
export DOCKER_HOST

started=$(date +%s)
status=0
npx vitest run --config vitest.containers.config.ts || status=$?
compose_done=$(date +%s)
THUND_STACK=containers npx vitest run --project services "$@" || status=$?
finished=$(date +%s)
echo "containers lane: compose $((compose_done - started)) s, integration on containers $((finished - compose_done)) s, exit $status"
exit "$status"
