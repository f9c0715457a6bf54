#!/usr/bin/env bash
# The rule ids of specs/semantics.md cannot drift from the code and the tests.
#
# An id is the first cell of a row of one of the spec's tables: a capital
# letter, '-', then words of capitals and digits joined by '-' (G-EDGE-KIND),
# possibly ending in a numbered range (S-FN-1..3, which names S-FN-1, S-FN-2
# and S-FN-3). The stem of a numbered id (S-FN for S-FN-1..3, S-INIT for
# S-INIT-1) names every id of that number family. Elsewhere an id-shaped token
# is a word of that shape whose first letter is one the spec's ids begin with.
#
# Fails, listing each, when
#   - a row of a spec table has no id of that shape, or an id is there twice;
#   - an id names no code: no C++ or CUDA source outside tests/, docs/ and
#     specs/ has the id in it (a comment beside the code of the rule);
#   - an id names no test: no file under tests/ (test sources, CMake test
#     definitions, test graphs and their expected errors, the folders of
#     tests/malformed/RULE/) has it; the fuzzers' corpus and this checker's
#     folder do not count;
#   - an id-shaped token in any file (the fuzzers' corpus aside) is no id of
#     the spec, nor a member or stem of a numbered one.
# Usage: check_rule_ids.sh [SOURCE_DIR]  (by default the checkout it is in)
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
spec=specs/semantics.md

if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "skipped: $(pwd) is not a git checkout, so which files are sources is unknown"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The files of the checkout: tracked, and new ones git does not ignore.
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
  grep -v '^tests/fuzz/corpus/' > "$tmp/all" || true
grep -E '\.(c|cc|cpp|h|hpp|cu|cuh)$' "$tmp/all" | grep -vE '^(tests|docs|specs)/' > "$tmp/code" || true
grep -E '^tests/' "$tmp/all" | grep -v '^tests/specs/' > "$tmp/tests" || true

id_re='[A-Z]-[A-Z][A-Z0-9]*(-[A-Z0-9]+)*(\.\.[0-9]+)?'

# The spec's ids, each with the "where" cell of its row; malformed rows.
awk -F'|' -v re="^${id_re}\$" '
  /^\|/ {
    id = $2; gsub(/^ +| +$/, "", id)
    if (id == "id" || id ~ /^-+$/) next
    if (id !~ re) { printf "%s:%d: a table row whose first cell is not an id: %s\n", FILENAME, FNR, id > "/dev/stderr"; bad = 1; next }
    if (id in seen) { printf "%s:%d: %s is the id of two rows\n", FILENAME, FNR, id > "/dev/stderr"; bad = 1 }
    seen[id] = 1
    where = $4; gsub(/^ +| +$/, "", where)
    print id "\t" where
  }
  END { exit bad }' "$spec" > "$tmp/ids" 2> "$tmp/spec-errors" || true

# Every name of each id: itself, and for a numbered id its members and stem.
awk -F'\t' '
  { id = $1; print id "\t" id }
  match(id, /-[0-9]+\.\.[0-9]+$/) {
    stem = substr(id, 1, RSTART - 1); range = substr(id, RSTART + 1)
    split(range, ends, /\.\./)
    for (k = ends[1] + 0; k <= ends[2] + 0; ++k) print stem "-" k "\t" id
    print stem "\t" id
    next
  }
  match(id, /-[0-9]+$/) { print substr(id, 1, RSTART - 1) "\t" id }' "$tmp/ids" > "$tmp/names"

# Id-shaped tokens: words of the shape whose first letter begins some id.
letters=$(cut -c1 "$tmp/ids" | sort -u | tr -d '\n')
token_re="\\b[${letters:-A-Z}]-[A-Z][A-Z0-9]*(-[A-Z0-9]+)*(\\.\\.[0-9]+)?\\b"
tokens() {  # FILE-LIST -> file:line:token per token
  tr '\n' '\0' < "$1" | xargs -0 -r grep -IHonE "$token_re" || true
}
tokens "$tmp/all" > "$tmp/all-tokens"
tokens "$tmp/code" > "$tmp/code-tokens"
{ tokens "$tmp/tests"; grep -oE "$token_re" "$tmp/tests" | sed 's/^/path:0:/' || true; } > "$tmp/test-tokens"

awk -F'\t' -v names="$tmp/names" -v code="$tmp/code-tokens" -v tests="$tmp/test-tokens" -v all="$tmp/all-tokens" '
  function token(line) { sub(/^[^:]*:[0-9]*:/, "", line); return line }
  BEGIN {
    while ((getline line < names) > 0) { split(line, f, "\t"); named[f[1]] = named[f[1]] " " f[2] }
    while ((getline line < code) > 0) { t = token(line); if (t in named) { n = split(named[t], ids, " "); for (i = 1; i <= n; ++i) in_code[ids[i]] = 1 } }
    while ((getline line < tests) > 0) { t = token(line); if (t in named) { n = split(named[t], ids, " "); for (i = 1; i <= n; ++i) in_test[ids[i]] = 1 } }
    while ((getline line < all) > 0) if (!(token(line) in named)) unknown = unknown "\n  " line
  }
  { ++count; order[count] = $1; where[$1] = $2 }
  END {
    for (i = 1; i <= count; ++i) {
      id = order[i]
      if (!(id in in_code)) no_code = no_code sprintf("\n  %-16s (spec: %s)", id, where[id])
      if (!(id in in_test)) no_test = no_test "\n  " id
    }
    printf "%d rule ids in specs/semantics.md\n", count
    if (no_code != "") { print "FAIL: ids that no code names (give the code of each rule a comment with its id):" no_code; bad = 1 }
    if (no_test != "") { print "FAIL: ids that no test names (a test of the rule, with the id in its name or a comment):" no_test; bad = 1 }
    if (unknown != "") { print "FAIL: id-shaped tokens that are no id of specs/semantics.md (add the rule to the spec, or name an id it has):" unknown; bad = 1 }
    exit bad
  }' "$tmp/ids" && status=0 || status=1

if [ -s "$tmp/spec-errors" ]; then
  echo "FAIL: the spec's tables:"
  sed 's/^/  /' "$tmp/spec-errors"
  status=1
fi
[ "$status" -eq 0 ] && echo "every id names code and a test, and every id-shaped token is an id"
exit "$status"
