#!/usr/bin/env bash
# Fetch the pinned solver wheels (z3-solver, cvc5) from PyPI, check their
# sha256, and unpack their shared libraries into solvers/lib and the z3
# executable (with Spacer, for `arrax bench --peer spacer`) into
# solvers/bin/z3 (all git-ignored). Running it again when they are present
# does nothing; each part is unpacked only when it is missing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/solvers"
lib="$dest/lib"
bin="$dest/bin"
stamp="$lib/.fetched-z3-5.4.0.0-cvc5-1.4.2"

Z3_WHEEL=z3_solver-5.4.0.0-py3-none-manylinux_2_27_x86_64.whl
Z3_SHA=0549ffad554178a59480ba41b5279cfbb27053ed5a2da269ae1a48214d5db34b
CVC5_WHEEL=cvc5-1.4.2-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
CVC5_SHA=fad09688fd0ee6ef6e8ce81fbf7e2ebaab466bd1b4bd6fefe0dd24ca772d089f
# the z3 executable inside the z3 wheel
Z3_BIN_MEMBER=z3_solver-5.4.0.0.data/data/bin/z3
Z3_BIN_SHA=4bf249abd220d0ae4582536e572aa04019b8dfc91d25135fb6f098d230acfd0d

have_libs() { [ -f "$stamp" ] && [ -e "$lib/libz3.so" ] && [ -e "$lib/libcvc5.so" ]; }
have_bin() { [ -x "$bin/z3" ] && echo "$Z3_BIN_SHA  $bin/z3" | sha256sum -c --quiet - >/dev/null 2>&1; }

if have_libs && have_bin; then
  exit 0
fi

die() { echo "fetch-solvers: $*" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || die "only x86_64 Linux wheels are pinned (this is $(uname -m))"
command -v python3 >/dev/null || die "python3 (with pip) is needed to download the solver wheels"
python3 -m pip --version >/dev/null 2>&1 || die "python3 -m pip is not available"

work="$dest/wheels"
mkdir -p "$work" "$lib"

fetch() { # name==version platform wheel sha
  local spec=$1 plat=$2 wheel=$3 sha=$4
  if [ ! -f "$work/$wheel" ] || ! echo "$sha  $work/$wheel" | sha256sum -c --quiet - >/dev/null 2>&1; then
    rm -f "$work/$wheel"
    echo "fetch-solvers: downloading $spec ($plat)" >&2
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --platform "$plat" --python-version 3.11 --implementation cp \
      -d "$work" "$spec" >&2 \
      || die "could not download $spec from the package registry (network or registry problem?)"
  fi
  [ -f "$work/$wheel" ] || die "downloaded $spec but $wheel is not there (did the registry publish another build?)"
  echo "$sha  $work/$wheel" | sha256sum -c --quiet - >/dev/null 2>&1 \
    || die "sha256 mismatch for $wheel: expected $sha, got $(sha256sum "$work/$wheel" | cut -d' ' -f1)"
}

fetch z3-solver==5.4.0.0 manylinux_2_27_x86_64 "$Z3_WHEEL" "$Z3_SHA"
fetch cvc5==1.4.2 manylinux_2_17_x86_64 "$CVC5_WHEEL" "$CVC5_SHA"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! have_bin; then
  python3 - "$work/$Z3_WHEEL" "$Z3_BIN_MEMBER" "$tmp" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])
PY
  echo "$Z3_BIN_SHA  $tmp/$Z3_BIN_MEMBER" | sha256sum -c --quiet - >/dev/null 2>&1 \
    || die "sha256 mismatch for the z3 executable in $Z3_WHEEL"
  mkdir -p "$bin"
  cp -f "$tmp/$Z3_BIN_MEMBER" "$bin/z3.tmp" && chmod +x "$bin/z3.tmp" && mv -f "$bin/z3.tmp" "$bin/z3"
  echo "fetch-solvers: z3 executable ready in $bin" >&2
fi

if have_libs; then
  exit 0
fi
python3 - "$work/$Z3_WHEEL" "$work/$CVC5_WHEEL" "$tmp" <<'PY'
import sys, zipfile
for w in sys.argv[1:3]:
    zipfile.ZipFile(w).extractall(sys.argv[3])
PY
cp -f "$tmp"/z3/lib/libz3.so* "$lib/"
rm -rf "$dest/include" && mkdir -p "$dest/include" && cp -f "$tmp"/z3/include/*.h "$dest/include/"
cp -f "$tmp"/cvc5.libs/*.so* "$lib/"
cvc5_lib=$(cd "$lib" && ls libcvc5-*.so.* | grep -v parser | head -n 1)
[ -n "$cvc5_lib" ] || die "no libcvc5 in the cvc5 wheel"
ln -sf "$cvc5_lib" "$lib/libcvc5.so"
touch "$stamp"
echo "fetch-solvers: solver libraries ready in $lib" >&2
