#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Shell completion (completion/memsz for bash, completion/_memsz for zsh)
# offers what memsz's tables hold and what memsz accepts: commands,
# options, --by keys per element of a comma list, --fields and --sort
# columns, --format names, --snapshot words, PIDs with their command
# names, files after -i and -o, the command line after `record --`.
# bash's completion function is driven here as bash would drive it
# (COMP_WORDS split at COMP_WORDBREAKS), with the lists compared to
# --help, --list-keys and what memsz accepts.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || skip_all "no $bc (bash-completion)"
. "$bc"
. "$top_srcdir/completion/memsz"
mkdir "$T/bin"
ln -s "$(cd "$(dirname "$MEMSZ")" && pwd)/$(basename "$MEMSZ")" "$T/bin/memsz"
PATH=$T/bin:$PATH

# comp_shown LINE: what bash would offer for LINE (cursor at its end),
# one a line, with the descriptions shown beside the words.
comp_shown() {
	local s=${1//=/ = }
	COMP_LINE=$1 COMP_POINT=${#1}
	s=${s//:/ : }
	read -ra COMP_WORDS <<<"$s"
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_memsz memsz "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}"
}
# comp LINE: the words alone.
comp() { comp_shown "$1" | sed 's/  *(.*//'; }
# same A B: the two sorted lists of lines are equal (else both shown).
same() {
	if [ "$(sort <<<"$1")" = "$(sort <<<"$2")" ]; then
		return 0
	fi
	echo "# got:" $1
	echo "# want:" $2
	return 1
}

check "complete -p memsz names _memsz" \
	[ "$(complete -p memsz)" = "complete -F _memsz memsz" ]

# commands: those memsz --help lists
want=$(memsz --help | sed -n '/^Commands:/,/^$/s/^   \([a-z]*\) .*/\1/p')
check "commands are memsz --help's" same "$(comp 'memsz ')" "$want"
check "a command by its first letters" \
	same "$(comp 'memsz re')" "$(printf 'record\nreport')"
check "help completes a command" same "$(comp 'memsz help ')" "$want"
check "memsz's own options" \
	same "$(comp 'memsz --')" "$(printf -- '--version\n--help')"

# options: every long option each command's --help shows, and no other
for cmd in size record report diff dump; do
	want=$(memsz help $cmd | sed -n '/^  *-/p' |
		grep -o -- '--[a-z][a-z-]*' | sort -u)
	want=$(printf '%s\n--help' "$want" | sort -u)
	check "$cmd: the options of its --help" \
		same "$(comp "memsz $cmd --" | sort -u)" "$want"
done
check "report -: short options too" \
	grep -qx -- -F <<<"$(comp 'memsz report -')"

# --by: the keys --list-keys gives, one element of a list at a time
for cmd in size report diff; do
	want=$(memsz $cmd --list-keys | awk '{print $1}')
	check "$cmd --by: its keys" same "$(comp "memsz $cmd --by ")" "$want"
done
check "--by files,s: the next element, the list kept" same \
	"$(comp 'memsz report --by files,s')" \
	"$(printf 'files,segments\nfiles,sections\nfiles,symbols')"
check "--by files,: no key twice" bash -c '! grep -qx "files,files"' \
	<<<"$(comp 'memsz report --by files,')"
# '=' breaks words for readline: the word replaced is what follows it
check "--by=f: the value after '='" \
	same "$(comp 'memsz report --by=f')" "$(printf 'files\nfaultsite')"
check "--filter: the keys as KEY=" \
	grep -qx 'sections=' <<<"$(comp 'memsz size --filter ')"

# columns, formats and --snapshot words: each one accepted (a usage
# error is exit 129; a missing recording or file is 1)
accepted() { # CMD OPTION VALUE...
	local cmd=$1 opt=$2 v rc
	shift 2
	for v; do
		case $cmd in
		report) memsz report $opt "$v" -i "$T/none" ;;
		diff) memsz diff $opt "$v" "$T/none" "$T/none" ;;
		esac >/dev/null 2>&1
		rc=$?
		[ "$rc" -ne 129 ] || {
			echo "# $cmd $opt $v: usage error"
			return 1
		}
	done
	[ $# -gt 0 ]
}
for cmd in report diff; do
	for opt in --fields --sort --format --snapshot; do
		words=$(comp "memsz $cmd $opt ")
		check "$cmd $opt: $(echo $words)" accepted $cmd $opt $words
	done
done
check "size --fields: file and vm" \
	same "$(comp 'memsz size --fields ')" "$(printf 'file\nvm')"
check "size --sort: file, vm and the orders name, both" \
	same "$(comp 'memsz size --sort ')" "$(printf 'file\nvm\nname\nboth')"
check "report --sort: the orders addr and name too" \
	[ "$(comp 'memsz report --sort ' | grep -cx 'addr\|name')" -eq 2 ]
for f in $(comp 'memsz size --format '); do
	memsz size --format "$f" /bin/true >/dev/null 2>&1 ||
		nok "size --format $f is accepted"
done
check "size --format: the seven formats" \
	[ "$(comp 'memsz size --format ' | wc -l)" -eq 7 ]
check "diff --format: the formats of a diff" same \
	"$(comp 'memsz diff --format ')" "$(printf 'table\ncsv\ntsv\njson')"
check "report --snapshot: first, last, peak" same \
	"$(comp 'memsz report --snapshot ')" "$(printf 'first\nlast\npeak')"
check "report --fields rss,p: the list kept" same \
	"$(comp 'memsz report --fields rss,p')" \
	"$(printf 'rss,pss\nrss,procs')"
check "report --fields: relocs only with --by relocs" \
	bash -c '! grep -qx relocs' <<<"$(comp 'memsz report --fields ')"
check "report --by relocs --fields: relocs" \
	grep -qx relocs <<<"$(comp 'memsz report --by files,relocs -F ')"
check "report --sort: no derived column" \
	bash -c '! grep -qx res' <<<"$(comp 'memsz report --sort ')"
refused() { ! accepted "$@" >/dev/null; }
check "the check can fail: a column memsz does not have is refused" \
	refused report --fields bogus

# PIDs, by number or by command name, shown with the name
sleep 600 &
pid=$!
track $pid
wait_for "sleep started" grep -q sleep "/proc/$pid/comm"
check "-p PID: the pid offered" \
	grep -qx "$pid" <<<"$(comp "memsz record -p $pid")"
check "-p: pids shown with their command names" grep -q "^$pid  *(sleep)\$" \
	<<<"$(COLUMNS=200 comp_shown 'memsz record -p ')"
check "-p sle: a process by its command name" \
	grep -qx "$pid" <<<"$(comp 'memsz record -p sle')"
check "-p 1,PID: the list goes on, each pid once" \
	grep -qx "1,$pid" <<<"$(comp 'memsz record -p 1,')"
check "--pid of report: pids too" \
	grep -qx "$pid" <<<"$(comp 'memsz report --pid ')"

# files after -i and -o, the launched command after record --
cd "$T" || fail_all "cd $T"
: >memsz.data
mkdir sub
check "-i: files" grep -qx memsz.data <<<"$(comp 'memsz report -i mem')"
check "-o: files" grep -qx memsz.data <<<"$(comp 'memsz record -o mem')"
check "size FILE: files" grep -qx memsz.data <<<"$(comp 'memsz size mem')"
check "--debug-root: directories" \
	same "$(comp 'memsz size --debug-root s')" sub
check "record -- CMD: commands" \
	grep -qx sleep <<<"$(comp 'memsz record -- slee')"
check "record -p 1 CMD: commands after the options" \
	grep -qx sleep <<<"$(comp 'memsz record -p 1 slee')"
check "record -- CMD ARG: the command's own completion" \
	grep -qx memsz.data <<<"$(comp 'memsz record -- cat mem')"

if command -v zsh >/dev/null 2>&1; then
	check "zsh completion parses" zsh -n "$top_srcdir/completion/_memsz"
else
	skip "no zsh: its completion is not checked"
fi
finish
