# tests/lib.sh — shared by the end-to-end shell tests (sourced, not run).
# Each case is one named assertion printed as TAP-like "ok N - name" or
# "not ok N - name"; a script ends with `exit $fail`.
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
# check NAME CMD...: one assertion that CMD succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
