#!/usr/bin/env bash
# `npm run test:ci`, what CI runs (.ci/run) and the README's test command: the dependencies installed, the whole
# suite on the image's Node.js against Kafka 3.9.1 and beside it the group and protocol tests (`npm run test:protocol`)
# against Kafka 4.2, the unit tests on the oldest supported Node.js, and the demo on both. Each Node.js is the
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

step "The type check and the build on Node.js $NODE_IMAGE, and the broker jars of Kafka 3.9.1 and 4.2"
PATH="$image_bin:$PATH" npm run typecheck --silent
# The build's output is the same whichever Node.js compiles it: the demo on both runs this one.
PATH="$image_bin:$PATH" npm run build --silent
# Fetched one release after the other, before the two runs that each start a broker begin side by side: two Maven runs
# on one local repository at once may download the same plugin into the same place.
for release in 3.9 4.2; do
  PATH="$image_bin:$PATH" node -e 'const jars = require("./dist/src/host/broker/jars.js");
jars.ensureKafkaJars((line) => console.log(line), jars.parseKafkaVersion(process.argv[1])).then((dir) => console.log(`Kafka ${process.argv[1]}: ${dir}`));' "$release"
done

# Runs $2 (a function) in the background beside $4 in the foreground, then prints $2's output, kept until then, under
# its label $1, and fails naming both exits when either failed.
beside() {
  local background_label="$1" background="$2" foreground_label="$3" foreground="$4"
  local log pid background_status=0 foreground_status=0
  log="$(mktemp)"
  "$background" >"$log" 2>&1 &
  pid=$!
  "$foreground" || foreground_status=$?
  wait "$pid" || background_status=$?
  step "$background_label (exit $background_status)"
  cat "$log"
  rm -f "$log"
  if [ "$foreground_status" -ne 0 ] || [ "$background_status" -ne 0 ]; then
    echo "Failed: $foreground_label exited $foreground_status, $background_label exited $background_status" >&2
    exit 1
  fi
}

# The group and protocol tests on Kafka 4.2 (its jars fetched once into the cache beside 3.9.1's) mostly wait on
# rebalances and the broker: they run beside the whole suite, one file at a time on a broker of their own.
step "The whole suite on Node.js $NODE_IMAGE, the image's, against Kafka 3.9.1; beside it, the group and protocol tests against Kafka 4.2"
protocol_tests() { PATH="$image_bin:$PATH" SLUICE_KAFKA_VERSION=4.2 npm run test:protocol -- --maxWorkers=1; }
whole_suite() { PATH="$image_bin:$PATH" npx jest; }
beside "the group and protocol tests on Kafka 4.2" protocol_tests "the whole suite on Node.js $NODE_IMAGE" whole_suite

step "The unit tests on Node.js $NODE_OLDEST, the oldest supported"
PATH="$oldest_bin:$PATH" npx jest --selectProjects unit

# Each demo runs on a free port with a broker and a state directory of its own: both at once.
step "The demo on Node.js $NODE_OLDEST and $NODE_IMAGE"
oldest_demo() { PATH="$oldest_bin:$PATH" node dist/tools/demo-smoke.js; }
image_demo() { PATH="$image_bin:$PATH" node dist/tools/demo-smoke.js; }
beside "the demo on Node.js $NODE_OLDEST" oldest_demo "the demo on Node.js $NODE_IMAGE" image_demo

step "Passed: the whole suite on Node.js $NODE_IMAGE (Kafka 3.9.1), the group and protocol tests on Kafka 4.2, the unit tests on $NODE_OLDEST, the demo on both"
