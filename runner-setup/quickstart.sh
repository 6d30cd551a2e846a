#!/usr/bin/env bash
# Quick start: install what perfgate needs that is missing, run the default job (the smoke
# workload against the default MariaDB: official build, fetched and checksum-verified by perfgate
# itself), and only then install what the test suite alone needs, so that `npm test` works next.
# The first result does not wait for the test tools (the first time, building act takes ~8 minutes).
# Extra arguments go to `perfgate run` (e.g. --server deb:mariadb@10.11.18).
set -euo pipefail
cd "$(dirname "$0")/.."
bash runner-setup/install-deps.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run --silent build   # a second or two; keeps dist/ in step with the sources after a pull
status=0
node bin/perfgate.mjs run "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "quickstart: perfgate run exited with $status; the test suite's tools were not installed (bash runner-setup/install-deps.sh --for-tests installs them)" >&2
  exit "$status"
fi
echo "quickstart: first measurement done; now installing what only the test suite needs (npm test): compilers, Chromium, the Docker client, act (the first time about 8 minutes)"
bash runner-setup/install-deps.sh --for-tests
