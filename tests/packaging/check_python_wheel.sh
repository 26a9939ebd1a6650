#!/usr/bin/env bash
# The Python package as a user installs it over an installed Graft: cmake --install into a
# temporary prefix, `pip wheel` of bindings/python with GRAFT_USE_SYSTEM_LIB=1 (the SWIG module
# alone, built against that prefix's libgraft found by pkg-config), the wheel installed into a
# fresh virtual environment with no index, and `python -m graft` run there, away from the
# source and build trees. The wheel must hold the whole package (graft.autograph too) and no
# libgraft, and the module must load the installed one.
set -euo pipefail
# shellcheck source=expect_output.sh
. "$(dirname "$0")/expect_output.sh"
build_dir="$1"
work="$2"
python="$3"
src="$(cd "$(dirname "$0")/../.." && pwd)"

for module in pip setuptools wheel numpy; do
  "$python" -c "import $module" 2> /dev/null \
    || { echo "FAIL: $python lacks the module $module (scripts/install-deps.sh installs it)"; exit 1; }
done
command -v swig > /dev/null || { echo "FAIL: swig not found"; exit 1; }

# shellcheck source=install_prefix.sh
. "$(dirname "$0")/install_prefix.sh"

# A copy of the bindings (pip builds in place: the source tree stays clean).
mkdir -p "$work/src"
cp -r "$src/bindings" "$work/src/bindings"
rm -rf "$work/src/bindings/python/tests"
GRAFT_USE_SYSTEM_LIB=1 "$python" -m pip wheel --quiet --no-build-isolation --no-deps --no-index \
  -w "$work/wheel" "$work/src/bindings/python" > "$work/wheel.log" 2>&1 \
  || { tail -40 "$work/wheel.log"; echo "FAIL: pip wheel"; exit 1; }
wheel_file="$(ls "$work"/wheel/graft-*.whl)"
contents="$("$python" -m zipfile -l "$wheel_file")"
for member in graft/__init__.py graft/__main__.py graft/autograph/__init__.py graft/graft_swig.py graft/_graft_swig; do
  grep -q "$member" <<< "$contents" || { echo "FAIL: the wheel lacks $member"; exit 1; }
done
if grep -q "libgraft.so" <<< "$contents"; then
  echo "FAIL: a GRAFT_USE_SYSTEM_LIB wheel holds a libgraft"
  exit 1
fi
echo "ok: wheel $(basename "$wheel_file")"

# NumPy from the interpreter's own site-packages; nothing fetched.
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel_file"
cd "$work"
out="$(env -u PYTHONPATH -u LD_LIBRARY_PATH "$work/venv/bin/python" -m graft)"
echo "$out"
version="$(pkg-config --modversion graft)"
expect "python -m graft names no version $version" "^graft $version"
grep -q "graft-$version-" <<< "$(basename "$wheel_file")" || { echo "FAIL: the wheel is not version $version"; exit 1; }
expect "the package was not imported from the venv" "$work/venv/"
expect "the module did not load the installed libgraft" "libgraft.*$libdir/libgraft.so"
expect "no CPU device listed" "CPU"
expect "the self-check did not pass" "self-check: a MatMul ran"
echo "ok: python wheel over the installed Graft"
