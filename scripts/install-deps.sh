#!/usr/bin/env bash
# Installs the Debian packages that building and testing Graft need. Idempotent:
# it installs only what is missing and does nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git python3
  libopenblas-dev
  libprotobuf-c-dev protobuf-c-compiler
  ocl-icd-opencl-dev opencl-headers libclblast-dev pocl-opencl-icd clinfo
  libcmocka-dev swig graphviz libre2-dev
  binutils clang libclang-rt-dev lld abigail-tools
  openjdk-17-jdk-headless junit5 golang-go ruby ruby-dev
  libopenmpi-dev openmpi-bin
)
# Debian 12's lld is version 14; its lld-16 also packs relative relocations (DT_RELR), which
# takes 0.4 MB off libgraft. Later releases' lld does so itself.
if grep -q '^VERSION_ID="12"' /etc/os-release 2> /dev/null; then
  packages+=(lld-16)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# The Python binding's tests need NumPy and pytest for the python3 on PATH, and its wheel test
# (packaging.python_wheel) setuptools and wheel.
python_modules() {
  if ! python3 -c "import numpy, pytest, setuptools, wheel" 2> /dev/null; then
    echo "install-deps: installing numpy, pytest, setuptools and wheel for $(command -v python3)"
    python3 -m pip install --quiet numpy pytest setuptools wheel 2> /dev/null \
      || python3 -m pip install --quiet --user numpy pytest setuptools wheel
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  python_modules
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
python_modules
