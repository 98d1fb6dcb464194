#!/usr/bin/env bash
# `npm run test:ci`, what CI runs (.ci/run) and the README's test command: the dependencies installed, the whole
# suite on the image's Node.js against Kafka 3.9.1, the group and protocol tests (`npm run test:protocol`) again against
# Kafka 4.2, the unit tests on the oldest supported Node.js, and the demo on both. Each Node.js is the
# npm registry's package of its binary (node-<platform>-<cpu>, the versions in .ci/node-versions), installed once
# into $SLUICE_CACHE_DIR (else ~/.cache/sluice): no test runs on the Node.js that started this script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source .ci/node-versions
cache="${SLUICE_CACHE_DIR:-$HOME/.cache/sluice}"
package="node-$(node -p 'process.platform + "-" + process.arch')"

# The bin directory of Node.js $1, installed first if the cache does not have it.
node_bin() {
  local dir="$cache/$package-$1"
  if [ ! -x "$dir/node_modules/$package/bin/node" ]; then
    echo "Installing Node.js $1 ($package@$1) into $dir" >&2
    # Into a new directory that replaces the old one only once complete: an interrupted install leaves no half copy.
    rm -rf "$dir.partial"
    npm install --prefix "$dir.partial" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$1" >&2
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
  fi
  echo "$dir/node_modules/$package/bin"
}

# The local broker's Kafka release (docs/testing.md): 3.9.1 unless a step says otherwise, whatever the caller exported.
export SLUICE_KAFKA_VERSION=3.9

image_bin="$(node_bin "$NODE_IMAGE")"
oldest_bin="$(node_bin "$NODE_OLDEST")"

step() { echo; echo "== $* ($(date -u +%H:%M:%S))"; }

# On the image's Node.js, as the image's build stage installs them: install scripts see the version that runs them.
# (`npm ci` is refused on a fresh clone: the lockfile cannot hold other platforms' optional packages.)
step "npm install on Node.js $NODE_IMAGE"
PATH="$image_bin:$PATH" npm install --no-audit --no-fund

step "The type check and the whole suite on Node.js $NODE_IMAGE, the image's, against Kafka 3.9.1"
PATH="$image_bin:$PATH" npm test

# The consumer group, rebalance, assignment, static membership, transactions and cross-node query tests on Kafka 4.2
# (its jars fetched once into the cache beside 3.9.1's): about 2 minutes more.
step "The group and protocol tests on Node.js $NODE_IMAGE against Kafka 4.2"
PATH="$image_bin:$PATH" SLUICE_KAFKA_VERSION=4.2 npm run test:protocol

step "The unit tests on Node.js $NODE_OLDEST, the oldest supported"
PATH="$oldest_bin:$PATH" npx jest --selectProjects unit

# The build's output is the same whichever Node.js compiles it.
step "The demo on Node.js $NODE_OLDEST and $NODE_IMAGE"
PATH="$oldest_bin:$PATH" npm run build --silent
PATH="$oldest_bin:$PATH" node dist/tools/demo-smoke.js
PATH="$image_bin:$PATH" node dist/tools/demo-smoke.js

step "Passed: the whole suite on Node.js $NODE_IMAGE (Kafka 3.9.1), the group and protocol tests on Kafka 4.2, the unit tests on $NODE_OLDEST, the demo on both"
