#!/usr/bin/env bash
# The Ruby gem as a user installs it over an installed Graft: cmake --install into a temporary
# prefix, `gem build` of the directory the build staged, `gem install --local` into a gem home
# of its own (the extension compiled by extconf.rb against the prefix's libgraft, found by
# pkg-config), then the README's example run with that gem home alone, away from the build tree.
set -euo pipefail
build_dir="$1"
work="$2"
gem_dir="$3"
ruby="$4"
gem="$(dirname "$ruby")/gem"
[ -x "$gem" ] || gem="$(command -v gem)"

# shellcheck source=install_prefix.sh
. "$(dirname "$0")/install_prefix.sh"
version="$(pkg-config --modversion graft)"

cp -r "$gem_dir" "$work/gem-src"
(cd "$work/gem-src" && "$gem" build graft.gemspec > "$work/build.log" 2>&1) \
  || { cat "$work/build.log"; echo "FAIL: gem build"; exit 1; }
gem_file="$work/gem-src/graft-$version.gem"
[ -f "$gem_file" ] || { ls "$work/gem-src"; echo "FAIL: no graft-$version.gem"; exit 1; }
echo "ok: gem build $(basename "$gem_file")"

export GEM_HOME="$work/gems" GEM_PATH="$work/gems"
"$gem" install --local --no-document --install-dir "$GEM_HOME" "$gem_file" > "$work/gem-install.log" 2>&1 \
  || { cat "$work/gem-install.log"; find "$GEM_HOME" -name mkmf.log -exec tail -30 {} \; ; echo "FAIL: gem install"; exit 1; }
echo "ok: gem install"
ext="$(find "$GEM_HOME" -name 'graft_swig.so' | head -1)"
[ -n "$ext" ] || { echo "FAIL: the installed gem has no graft_swig.so"; exit 1; }
readelf -d "$ext" | grep -q "R.*PATH.*$libdir" || { echo "FAIL: graft_swig.so has no run path to $libdir"; exit 1; }

cd "$work"
unset PKG_CONFIG_PATH
out="$(env -u RUBYLIB -u LD_LIBRARY_PATH "$ruby" -e '
require "graft"
graph = Graft::Graph.new
x = graph.placeholder(:float32, shape: [nil, 2], name: "x")
w = graph.const([[1.0, 2.0], [3.0, 4.0]], name: "w")
y = graph.op(:MatMul, x, w, name: "y")
p Graft::Session.new(graph).run(y, x => [[1.0, 1.0], [0.5, 2.0]]).to_a
double_relu = Graft.function("double_relu") { |ctx, v| ctx.op(:Mul, ctx.op(:Relu, v), 2.0) }
p double_relu.call([-1.0, 2.0]).to_a
puts $LOADED_FEATURES.grep(/graft_swig/).first
puts File.readlines("/proc/self/maps").map { |l| l.split.last }.grep(/libgraft\.so/).first
')"
echo "$out"
grep -qF "[[4.0, 6.0], [6.5, 9.0]]" <<< "$out" || { echo "FAIL: the MatMul example"; exit 1; }
grep -qF "[0.0, 4.0]" <<< "$out" || { echo "FAIL: the function example"; exit 1; }
grep -q "^$GEM_HOME/.*graft_swig.so" <<< "$out" || { echo "FAIL: graft_swig was not loaded from the gem"; exit 1; }
grep -q "^$libdir/libgraft.so" <<< "$out" || { echo "FAIL: the installed libgraft was not loaded"; exit 1; }
echo "ok: ruby gem over the installed Graft"
