#!/usr/bin/env bash
# Writes the manual pages of spool's functions from the doc comments of
# include/spool.h and the headers it includes, so that they cannot drift
# from the headers: one page per comment that begins "name: ..." or
# "name / name2: ..." (the first name's page; every other function
# declared under it gets a .so link), with NAME,
# SYNOPSIS (the declarations), DESCRIPTION, THREADS and RETURN VALUE; then
# spool.3, the overview, from man/spool.3.in with the list of pages added.
# A HEADER written PAGE=PATH is a header of macros or inline functions
# (spool_typed.h, spool_inline.h, spool.hpp): its page PAGE is the header's
# opening comment, and every public name it defines (a SPOOL_ macro, a
# spool_ function or type) gets a .so link to it.  Pages go in OUTDIR/man3,
# so that MANPATH=OUTDIR finds them and their .so links resolve.
# Usage: man/gen-man.sh SPOOL_3_IN OUTDIR VERSION HEADER...
set -eu
overview=$1
out=$2/man3
version=$3
shift 3
mkdir -p "$out"
: > "$out/pages.txt"
plain=()
for h in "$@"; do
  case "$h" in
    *=*) ;;
    *) plain+=("$h"); continue ;;
  esac
  page=${h%%=*}
  path=${h#*=}
  file=$(basename "$path")
  {
    echo ".TH $(echo "$page" | tr a-z A-Z) 3 \"\" \"spool $version\" \"spool manual\""
    echo ".SH NAME"
    # The comment's first paragraph: "name.h: what it is".
    awk -v page="$page" 'NR == 1 { next }
         /^ \*$/ || /^ \*\/$/ { exit }
         { l = $0; sub(/^ \* ?/, "", l); if (NR == 2) sub(/^[^:]*: */, "", l); t = t (t == "" ? "" : " ") l }
         END { print page " \\- " t }' "$path"
    echo ".SH SYNOPSIS"
    echo ".nf"
    echo ".B #include <$file>"
    echo ".fi"
    echo ".SH DESCRIPTION"
    echo ".nf"
    # The rest of the opening comment, as it is written (no fill).
    awk 'NR > 1 && !body && (/^ \*$/ || /^ \*\/$/) { body = 1; next }
         !body { next }
         /^ \*\/$/ { exit }
         {
             l = $0; sub(/^ \* ?/, "", l); gsub(/\\/, "\\e", l)
             if (l ~ /^[.\047]/) l = "\\&" l
             print l
         }' "$path"
    echo ".fi"
    echo ".SH SEE ALSO"
    echo ".BR spool (3)"
  } > "$out/$page.3"
  echo "$page" >> "$out/pages.txt"
  names=$(grep -oE '^#define SPOOL_[A-Z][A-Z0-9_]*' "$path" | sed 's/^#define //' | grep -v '_H$\|_HPP$' || true)
  names="$names $(grep -oE '^(static inline|SPOOL__INLINE)[^(]* (spool_[a-z_]+)\(' "$path" |
                  grep -oE 'spool_[a-z_]+\($' | tr -d '(' | sort -u || true)"
  names="$names $(grep -oE '^} (spool_[a-z_]+_t);' "$path" | grep -oE 'spool_[a-z_]+_t' || true)"
  for name in $names; do
    [ "$name" = "$page" ] && continue
    echo ".so man3/$page.3" > "$out/$name.3"
    echo "$name" >> "$out/pages.txt"
  done
done
set -- ${plain[@]+"${plain[@]}"}
awk -v out="$out" -v version="$version" '
function roff(s) {            # escape one line of text for roff
    gsub(/\\/, "\\e", s)
    if (s ~ /^[.\x27]/) s = "\\&" s
    return s
}
function flush_page(   i, n, names, page, f, sect, line) {
    if (doc == "" || decl_count == 0) { doc = ""; decl_count = 0; return }
    split(title, names, " / ")
    page = names[1]
    f = out "/" page ".3"
    print ".TH " toupper(page) " 3 \"\" \"spool " version "\" \"spool manual\"" > f
    print ".SH NAME" > f
    line = ""
    for (i = 1; i <= decl_count; i++) line = line (i > 1 ? ", " : "") decl_name[i]
    # NAME: the first sentence of the comment, joined over its lines.
    text = summary
    n = split(doc, lines, "\n")
    for (i = 1; i <= n && lines[i] !~ /^(Threads|Returns): /; i++) text = text " " lines[i]
    if (match(text, /\.( |$)/)) text = substr(text, 1, RSTART - 1)
    print roff(line) " \\- " roff(text) > f
    print ".SH SYNOPSIS" > f
    print ".nf" > f
    print ".B #include <spool.h>" > f
    print "" > f
    for (i = 1; i <= decl_count; i++) print roff(decl[i]) > f
    print ".fi" > f
    sect = "DESCRIPTION"
    print ".SH " sect > f
    print roff(summary) > f
    n = split(doc, lines, "\n")
    for (i = 1; i <= n; i++) {
        line = lines[i]
        if (line ~ /^Threads: /) { print ".SH THREADS" > f; sub(/^Threads: /, "", line) }
        else if (line ~ /^Returns: /) { print ".SH RETURN VALUE" > f; sub(/^Returns: /, "", line) }
        if (line != "") print roff(line) > f
    }
    print ".SH SEE ALSO" > f
    print ".BR spool (3)" > f
    close(f)
    print page >> (out "/pages.txt")
    for (i = 1; i <= decl_count; i++) {
        if (decl_name[i] == page) continue
        f = out "/" decl_name[i] ".3"
        print ".so man3/" page ".3" > f
        close(f)
        print decl_name[i] >> (out "/pages.txt")
    }
    doc = ""; decl_count = 0
}
/^\/\*$/ { in_comment = 1; comment = ""; first = ""; next }
in_comment && /^ \*\/$/ {
    in_comment = 0
    if (first ~ /^spool_[a-z_]+( \/ spool_[a-z_]+)*: /) {
        title = first; sub(/: .*/, "", title)
        summary = first; sub(/^[^:]*: /, "", summary)
        doc = comment
        decl_count = 0
        want_decl = 1
    } else {
        want_decl = 0
    }
    next
}
in_comment {
    line = $0
    sub(/^ \* ?/, "", line)
    if (first == "") first = line
    else comment = comment (comment == "" ? "" : "\n") line
    next
}
want_decl && /^SPOOL_API / {
    text = $0
    while (text !~ /;/ && (getline more) > 0) { sub(/^ +/, " ", more); text = text more }
    sub(/^SPOOL_API /, "", text)
    name = text; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
    decl[++decl_count] = text
    decl_name[decl_count] = name
    next
}
want_decl && decl_count > 0 { flush_page(); want_decl = 0 }
END { flush_page() }
' "$@"
# The overview, with every page listed under SEE ALSO.
{
    sed "s/@VERSION@/$version/" "$overview"
    sort -u "$out/pages.txt" | awk '{ if (NR > 1) printf ",\n"; printf ".BR %s (3)", $1 } END { printf "\n" }'
} > "$out/spool.3"
rm -f "$out/pages.txt"
