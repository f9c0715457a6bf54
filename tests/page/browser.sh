# Sourced by the page tests: finds Debian's headless Chromium, exiting 77
# (skipped) where it is absent, makes $work (removed on exit), and defines
# headless ARGS..., which runs Chromium headless on a profile in $work, its
# chatter on stderr dropped.
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "no chromium: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
headless() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" "$@" 2>/dev/null
}
