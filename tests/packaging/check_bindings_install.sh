#!/usr/bin/env bash
# cmake --install of every binding the build made, each then used from the prefix alone (away
# from the build tree, without LD_LIBRARY_PATH): Python (-m graft), Ruby (require "graft" and
# a MatMul), Java (the example with the installed jar and lib/jni), Go (a program requiring
# graft.dev/graft, replaced by the installed module). No installed native module may have a
# run path into the build tree; each must load the installed libgraft.
#   check_bindings_install.sh BUILD WORK [--python=EXE:DIR] [--ruby=EXE:LIBDIR:ARCHDIR]
#                             [--java=JDKBIN:JARDIR:JNIDIR] [--go=EXE:MODDIR]
set -euo pipefail
build_dir="$(cd "$1" && pwd -P)"
work="$2"
shift 2
src="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=../../bindings/go/offline_env.sh
. "$src/bindings/go/offline_env.sh"
# shellcheck source=install_prefix.sh
. "$(dirname "$0")/install_prefix.sh"
# shellcheck source=expect_output.sh
. "$(dirname "$0")/expect_output.sh"
unset PKG_CONFIG_PATH  # each binding below finds the installed Graft without it
cd "$work"
work_real="$(pwd -P)"
unset LD_LIBRARY_PATH PYTHONPATH RUBYLIB CLASSPATH

# Run paths: none into the build tree, and the installed libgraft found through them.
check_module() {
  local module="$1"
  [ -f "$module" ] || { echo "FAIL: $module not installed"; exit 1; }
  local entry
  for entry in $(readelf -d "$module" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p' | tr ':' ' '); do
    case "$entry" in
      "$work_real"/*) ;;  # this test's prefix (which may lie inside the build tree)
      "$build_dir"/*) echo "FAIL: $module has the run path $entry, into the build tree"; exit 1 ;;
    esac
  done
  local resolved
  resolved="$(ldd "$module" | sed -n 's/^[[:space:]]*libgraft\.so\.[0-9]* => \(.*\) (0x.*/\1/p')"
  if [ -z "$resolved" ] || [ "$(readlink -f "$resolved")" != "$(readlink -f "$libdir"/libgraft.so)" ]; then
    ldd "$module" | grep libgraft
    echo "FAIL: $module does not resolve the installed libgraft"
    exit 1
  fi
}

for arg in "$@"; do
  case "$arg" in
    --python=*)
      IFS=: read -r exe dir <<< "${arg#--python=}"
      check_module "$(ls "$prefix/$dir"/graft/_graft_swig*.so)"
      out="$(PYTHONPATH="$prefix/$dir" "$exe" -m graft)"
      expect "python imported graft from elsewhere" "$prefix/$dir/graft"
      expect "python loaded another libgraft" "libgraft.*: $libdir/libgraft.so"
      expect "python self-check" "self-check: a MatMul ran"
      echo "ok: python from $prefix/$dir"
      ;;
    --ruby=*)
      IFS=: read -r exe rlib rarch <<< "${arg#--ruby=}"
      check_module "$prefix/$rarch/graft_swig.so"
      out="$("$exe" -I "$prefix/$rlib" -I "$prefix/$rarch" -e '
        require "graft"
        g = Graft::Graph.new
        a = g.const([[1.0, 2.0], [3.0, 4.0]])
        p Graft::Session.new(g).run(g.op(:MatMul, a, a)).to_a
        puts $LOADED_FEATURES.grep(/graft(_swig)?\.(rb|so)$/)')"
      expect "ruby MatMul" -F "[[7.0, 10.0], [15.0, 22.0]]"
      expect "ruby loaded another graft_swig" "^$prefix/$rarch/graft_swig.so"
      echo "ok: ruby from $prefix/$rlib"
      ;;
    --java=*)
      IFS=: read -r jdk jardir jnidir <<< "${arg#--java=}"
      check_module "$prefix/$jnidir/libgraft_java.so"
      [ -f "$prefix/$jardir/graft.jar" ] || { echo "FAIL: graft.jar not installed"; exit 1; }
      ls "$prefix/$jardir"/graft-*.pom > /dev/null || { echo "FAIL: the POM not installed"; exit 1; }
      mkdir -p "$work/java-classes" "$work/java-tmp"
      "$jdk/javac" -cp "$prefix/$jardir/graft.jar" -d "$work/java-classes" "$src/examples/java/GraftExample.java"
      out="$("$jdk/java" -Djava.library.path="$prefix/$jnidir" -Djava.io.tmpdir="$work/java-tmp" \
        -cp "$prefix/$jardir/graft.jar:$work/java-classes" GraftExample)"
      expect "java example" "\[20\.0, 30\.0, 42\.0\] (traces: 2)"
      echo "ok: java from $prefix/$jardir and $prefix/$jnidir"
      ;;
    --go=*)
      IFS=: read -r exe moddir <<< "${arg#--go=}"
      [ -f "$prefix/$moddir/internal/graft_swig/graft_wrap.cxx" ] || { echo "FAIL: the Go module's wrapper not installed"; exit 1; }
      if ls "$prefix/$moddir"/*_test.go > /dev/null 2>&1; then echo "FAIL: Go tests installed"; exit 1; fi
      graft_go_example_app "$work/goapp" "$prefix/$moddir" "$src"
      (cd "$work/goapp" && graft_go_env "$work" && CGO_CXXFLAGS=-O1 CGO_LDFLAGS="-Wl,-rpath,$libdir" \
        PKG_CONFIG_PATH="$libdir/pkgconfig" "$exe" build -o app . > "$work/go-build.log" 2>&1) \
        || { cat "$work/go-build.log"; echo "FAIL: go build against the installed module"; exit 1; }
      check_module "$work/goapp/app"
      out="$("$work/goapp/app")"
      expect "go example" "poly(\[4 5\]) = \[20 30\] (traces: 2)"
      echo "ok: go from $prefix/$moddir"
      ;;
    *) echo "unknown argument $arg"; exit 2 ;;
  esac
done
echo "ok: bindings installed"
