#!/usr/bin/env bash
# fuzz.sh - build and run a libFuzzer harness for a while.
#
#   scripts/fuzz.sh <name> [seconds] [extra libFuzzer flags...]
#
# Builds tests/fuzz/fuzz_<name>.c with clang -fsanitize=fuzzer,address,undefined
# together with the sources its "fuzz-sources:" comment line names (and the
# libraries of its "fuzz-libs:" line), into build-fuzz/fuzz_<name>, then runs
# it for <seconds> (default 60) on a scratch copy of tests/fuzz/corpus/<name>
# plus tests/fuzz/regressions/<name>.  New crashers land in
# build-fuzz/crashes/<name>/: minimise them, fix the bug, and copy them to
# tests/fuzz/regressions/<name>/ (test_<name> replays that folder).
# Set FUZZ_MERGE=1 to merge what the run found back into the seed corpus
# (keep seeds small).
set -euo pipefail
name=${1:?usage: scripts/fuzz.sh <name> [seconds] [libFuzzer flags...]}
secs=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
root=$(cd "$(dirname "$0")/.." && pwd)
harness=$root/tests/fuzz/fuzz_$name.c
[ -f "$harness" ] || { echo "fuzz.sh: no harness $harness" >&2; exit 2; }
CC=${CC:-$(command -v clang-14 || command -v clang)}
srcs=$(sed -n 's/.*fuzz-sources:[[:space:]]*//p' "$harness" | head -1)
libs=$(sed -n 's/.*fuzz-libs:[[:space:]]*//p' "$harness" | head -1)
out=$root/build-fuzz
mkdir -p "$out/crashes/$name" "$out/corpus/$name"
abs_srcs=()
for s in $srcs $root/src/common/log.c; do
  case $s in /*) abs_srcs+=("$s") ;; *) abs_srcs+=("$root/$s") ;; esac
done
# shellcheck disable=SC2086
"$CC" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -I"$root/src" -I"$root/include" \
  "$harness" "${abs_srcs[@]}" $libs -o "$out/fuzz_$name"
cp -n "$root/tests/fuzz/corpus/$name"/* "$out/corpus/$name/" 2>/dev/null || true
dirs=("$out/corpus/$name" "$root/tests/fuzz/corpus/$name")
[ -d "$root/tests/fuzz/regressions/$name" ] && dirs+=("$root/tests/fuzz/regressions/$name")
cd "$out/crashes/$name"
set +e
"$out/fuzz_$name" -max_total_time="$secs" -max_len=262144 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$out/crashes/$name/" "$@" "${dirs[@]}"
rc=$?
set -e
if [ "${FUZZ_MERGE:-0}" = 1 ]; then
  "$out/fuzz_$name" -merge=1 "$root/tests/fuzz/corpus/$name" "$out/corpus/$name"
fi
exit $rc
