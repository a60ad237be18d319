# Shared set-up of the Kubička evaluations (kubicka.sh, match-live.sh); source it from a script in
# scripts/eval. Sets CHECKS (the folder of kubicka.py), DATA (LOCATIONKIT_DATA), KUBICKA (the dev
# drives), GEO (a release geo, built here unless GEO is given) and T (a temporary folder removed on
# exit). Each may be set beforehand to override it.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CHECKS="${CHECKS:-$ROOT/../shared/checks}"
DATA="${LOCATIONKIT_DATA:-$ROOT/../shared/data}"
KUBICKA="${KUBICKA:-$DATA/traces/kubicka}"
if [[ -z "${GEO:-}" ]]; then
  (cd "$ROOT" && swift build -c release --product geo >/dev/null)
  GEO="$(cd "$ROOT" && swift build -c release --show-bin-path)/geo"
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
