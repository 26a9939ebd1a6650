# Sourced by the packaging checks: expect WHAT [GREP OPTIONS] PATTERN fails the check, showing
# $out (a command's captured output), unless $out matches PATTERN.
expect() {
  local what="$1"
  shift
  grep -q "$@" <<< "$out" || { echo "$out"; echo "FAIL: $what"; exit 1; }
}
