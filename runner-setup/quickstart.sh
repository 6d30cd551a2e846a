#!/usr/bin/env bash
# Quick start: install what is missing (for perfgate and for its test suite, so `npm test` works
# next), then run the default job: the smoke workload against the default MariaDB (official
# build, fetched and checksum-verified by perfgate itself).
# Extra arguments go to `perfgate run` (e.g. --server deb:mariadb@10.11.18).
set -euo pipefail
cd "$(dirname "$0")/.."
bash runner-setup/install-deps.sh --for-tests
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run --silent build   # a second or two; keeps dist/ in step with the sources after a pull
exec node bin/perfgate.mjs run "$@"
