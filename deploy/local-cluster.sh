#!/usr/bin/env bash
# Brings up deploy/nats/cluster/ on this machine the way docs/nats-security.md ("A cluster
# by hand") says: three nats-server nodes (clients on 4301-4303, routes on 6301-6303,
# monitoring on 8301-8303), dzpay's users with their permissions, a route user, and an
# admin user for diagnostics.
#
#   deploy/local-cluster.sh start   # prints NATS_URL and where the passwords are
#   deploy/local-cluster.sh stop
#
# State (copies of the configuration, stores, logs, pids, passwords.env) lives in
# NATS_CLUSTER_DIR (default .nats-cluster/ at the repository's root). Passwords are
# generated once, each starting with a letter (a bare hex one may read as a number to
# nats-server), into passwords.env, readable by its owner only.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
state="${NATS_CLUSTER_DIR:-$here/../.nats-cluster}"
nodes=(1 2 3)

stop() {
  for i in "${nodes[@]}"; do
    if [ -f "$state/n$i.pid" ]; then
      kill "$(cat "$state/n$i.pid")" 2>/dev/null || true
      rm -f "$state/n$i.pid"
    fi
  done
}

start() {
  command -v nats-server >/dev/null || { echo "nats-server is not installed (apt-get install nats-server)" >&2; exit 1; }
  mkdir -p "$state"
  cp "$here/nats/cluster/"*.conf "$state/"
  if [ ! -f "$state/passwords.env" ]; then
    (
      umask 077
      for user in GATEWAY QR_CONFIG PAYMENTS STATUS WEBHOOK_DISPATCHER RECEIPTS DASHBOARD CLI ADMIN ROUTE; do
        echo "NATS_${user}_PASSWORD=p$(openssl rand -hex 24)"
      done >"$state/passwords.env"
    )
  fi
  set -a
  # shellcheck disable=SC1091
  . "$state/passwords.env"
  set +a
  # Each peer's route URL carries the route user's password (nats-server reads it whole).
  for i in "${nodes[@]}"; do
    export "NATS_ROUTE_N$i=nats-route://route:${NATS_ROUTE_PASSWORD}@127.0.0.1:$((6300 + i))"
  done
  cd "$state"
  for i in "${nodes[@]}"; do
    nats-server -c "n$i.conf" -l "n$i.log" -P "n$i.pid" </dev/null >/dev/null 2>&1 &
  done
  # Ready: every node answers /healthz (JetStream current, the cluster formed).
  for i in "${nodes[@]}"; do
    for _ in $(seq 1 100); do
      if curl -fs "http://127.0.0.1:$((8300 + i))/healthz" >/dev/null 2>&1; then continue 2; fi
      sleep 0.2
    done
    echo "node n$i did not become healthy; see $state/n$i.log" >&2
    stop
    exit 1
  done
  echo "NATS_URL=nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303"
  echo "passwords (NATS_<USER>_PASSWORD, admin: NATS_ADMIN_PASSWORD): $state/passwords.env"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
