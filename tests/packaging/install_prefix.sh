# Sourced by the packaging checks that use an installed Graft (check_python_wheel.sh,
# check_ruby_gem.sh, check_go_module.sh): empties $work, installs $build_dir into
# "$work/prefix", and sets prefix, PKG_CONFIG_PATH (exported: the prefix's graft.pc) and libdir
# (the installed libgraft's directory, symbolic links resolved).
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build_dir" --prefix "$prefix" > "$work/install.log"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name graft.pc | head -1)")"
libdir="$(cd "$(pkg-config --variable=libdir graft)" && pwd -P)"
