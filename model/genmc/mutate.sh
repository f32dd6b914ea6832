#!/usr/bin/env bash
# Makes a mutant of spool (model/genmc/mutants): copies src/, include/ and
# omp/ into DEST and applies the mutant's replacements there.  Fails if the
# mutant is unknown or a replaced text does not occur exactly once.
#   model/genmc/mutate.sh NAME DEST
#   model/genmc/mutate.sh --list      the names, one per line
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
spec=$here/mutants

if [ "${1:-}" = --list ]; then
  awk '$1 == "mutant" {print $2}' "$spec"
  exit 0
fi
name=$1
dest=$2
mkdir -p "$dest"
cp -R "$root/src" "$root/include" "$root/omp" "$dest/"

found=0 file= old= have_old=0
apply() { # replaces $old by $1 in $dest/$file, which must hold it once
  local path=$dest/$file content rest
  [ -n "$file" ] || { echo "mutate: $name: a replacement before any 'in FILE'" >&2; exit 1; }
  content=$(<"$path")
  rest=${content#*"$old"}
  if [ -z "$old" ] || [ "$rest" = "$content" ]; then
    echo "mutate: $name: the text to replace is not in $file: $old" >&2
    exit 1
  fi
  if [[ $rest == *"$old"* ]]; then
    echo "mutate: $name: the text to replace occurs more than once in $file: $old" >&2
    exit 1
  fi
  printf '%s\n' "${content/"$old"/"$1"}" >"$path"
}
in_mutant=0
while IFS= read -r line; do
  line=${line#"${line%%[![:space:]]*}"} # leading blanks
  key=${line%% *}
  text=${line#"$key"}
  text=${text# }
  case "$key" in
    mutant) in_mutant=0; [ "$text" = "$name" ] && { in_mutant=1; found=1; } ;;
    in) [ $in_mutant = 1 ] && file=$text ;;
    replace) [ $in_mutant = 1 ] && { printf -v old '%b' "$text"; have_old=1; } ;;
    with)
      if [ $in_mutant = 1 ]; then
        [ $have_old = 1 ] || { echo "mutate: $name: 'with' without 'replace'" >&2; exit 1; }
        printf -v new '%b' "$text"
        apply "$new"
        have_old=0
      fi ;;
  esac
done <"$spec"
[ $found = 1 ] || { echo "mutate: no mutant named $name in $spec" >&2; exit 1; }
