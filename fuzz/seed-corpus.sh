#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the project's models (see README.md).
# Safe to run again: files are copied by name, nothing is deleted.
set -euo pipefail
cd "$(dirname "$0")"
root=..
mkdir -p corpus/mcmt corpus/cubicle corpus/canonical corpus/c corpus/chc
cp "$root"/models/*.mcmt "$root"/models/c-lowered/*.mcmt corpus/mcmt/
cp "$root"/models/*.cub corpus/cubicle/
cp "$root"/models/*.c "$root"/tests/c_programs/*.c corpus/c/
cp "$root"/models/*.smt2 corpus/chc/
# canonical prints: the snapshots of the models, without insta's header
for snap in "$root"/snapshots/*.snap; do
    if grep -q '^(system' "$snap"; then
        sed -n '/^(system/,$p' "$snap" > "corpus/canonical/$(basename "$snap" .snap).arrax"
    fi
done
echo "corpus: $(ls corpus/mcmt | wc -l) mcmt, $(ls corpus/cubicle | wc -l) cubicle, $(ls corpus/canonical | wc -l) canonical, $(ls corpus/c | wc -l) c, $(ls corpus/chc | wc -l) chc"
