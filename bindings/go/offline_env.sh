# Sourced by the scripts that run the go tool on graft.dev/graft outside CMake
# (tests/packaging/check_go_module.sh, check_bindings_install.sh, bench/bench_bindings_call.sh).

# graft_go_env DIR: the environment bindings/go/CMakeLists.txt's GRAFT_GO_ENV gives the go
# tool, exported: offline, modules on, cgo on, the build cache and GOPATH under DIR.
graft_go_env() {
  unset GOTOOLCHAIN
  export GOCACHE="$1/gocache" GOPATH="$1/gopath" GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOENV=off \
    GO111MODULE=on GOWORK=off CGO_ENABLED=1
}

# graft_go_example_app DIR MODULE SRC: a module of a user's own in DIR, example.com/app with
# SRC/examples/go/main.go, requiring graft.dev/graft through a replace directive to MODULE.
graft_go_example_app() {
  mkdir -p "$1"
  cp "$3/examples/go/main.go" "$1/main.go"
  printf 'module example.com/app\n\ngo 1.19\n\nrequire graft.dev/graft v0.0.0\n\nreplace graft.dev/graft => %s\n' \
    "$2" > "$1/go.mod"
}
