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

# The group and protocol tests on Kafka 4.2 (its jars fetched once into the cache beside 3.9.1's) mostly wait on
# rebalances and the broker: they run beside the whole suite, one file at a time on a broker of their own, their
# output kept until the suite is done.
step "The whole suite on Node.js $NODE_IMAGE, the image's, against Kafka 3.9.1; beside it, the group and protocol tests against Kafka 4.2"
protocol_log="$(mktemp)"
PATH="$image_bin:$PATH" SLUICE_KAFKA_VERSION=4.2 npm run test:protocol -- --maxWorkers=1 >"$protocol_log" 2>&1 &
protocol_pid=$!
suite_status=0
PATH="$image_bin:$PATH" npx jest || suite_status=$?
protocol_status=0
wait "$protocol_pid" || protocol_status=$?
step "The group and protocol tests against Kafka 4.2 (exit $protocol_status)"
cat "$protocol_log"
rm -f "$protocol_log"
if [ "$suite_status" -ne 0 ] || [ "$protocol_status" -ne 0 ]; then
  echo "Failed: the whole suite exited $suite_status, the group and protocol tests on Kafka 4.2 exited $protocol_status" >&2
  exit 1
fi

step "The unit tests on Node.js $NODE_OLDEST, the oldest supported"
PATH="$oldest_bin:$PATH" npx jest --selectProjects unit

# Each demo runs on a free port with a broker and a state directory of its own: both at once.
step "The demo on Node.js $NODE_OLDEST and $NODE_IMAGE"
demo_log="$(mktemp)"
PATH="$oldest_bin:$PATH" node dist/tools/demo-smoke.js >"$demo_log" 2>&1 &
demo_pid=$!
image_demo_status=0
PATH="$image_bin:$PATH" node dist/tools/demo-smoke.js || image_demo_status=$?
oldest_demo_status=0
wait "$demo_pid" || oldest_demo_status=$?
echo "-- the demo on Node.js $NODE_OLDEST:"
cat "$demo_log"
rm -f "$demo_log"
if [ "$image_demo_status" -ne 0 ] || [ "$oldest_demo_status" -ne 0 ]; then
  echo "Failed: the demo exited $oldest_demo_status on Node.js $NODE_OLDEST, $image_demo_status on $NODE_IMAGE" >&2
  exit 1
fi

step "Passed: the whole suite on Node.js $NODE_IMAGE (Kafka 3.9.1), the group and protocol tests on Kafka 4.2, the unit tests on $NODE_OLDEST, the demo on both"
