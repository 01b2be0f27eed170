#!/bin/sh
# jsonjob.sh: the rewriter's JSON job with the span scanner (internal/jsonspan,
# job_test.go) against the same job with jsontext and the whole
# rewriter (bench/peers/jsontext_test.go), on testdata/sse/jsonjob_events.txt.
# The two test binaries are built once and run alternately ROUNDS times (the
# machine is shared and noisy); then the median and the best of each
# benchmark are printed. Run from the repository root:
#
#	sh bench/jsonjob.sh            # ROUNDS=9 BENCHTIME=1s OUT=/tmp/jsonjob
#
# ROUNDS=0 only prints the summary of the runs already in OUT.
set -eu
ROUNDS=${ROUNDS:-9}
BENCHTIME=${BENCHTIME:-1s}
OUT=${OUT:-/tmp/jsonjob}
GO=${GO:-go}
root=$(pwd)
mkdir -p "$OUT"
if [ "$ROUNDS" -gt 0 ]; then
	rm -f "$OUT/span.txt" "$OUT/jsontext.txt"
	$GO test -c -o "$OUT/span.test" ./internal/jsonspan
	(cd bench/peers && $GO test -c -o "$OUT/jsontext.test" .)
	flags="-test.run ^\$ -test.bench ^BenchmarkJSONJob\$ -test.benchtime $BENCHTIME"
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		echo "round $i/$ROUNDS" >&2
		# shellcheck disable=SC2086
		if [ $((i % 2)) -eq 1 ]; then
			(cd "$root/internal/jsonspan" && "$OUT/span.test" $flags >>"$OUT/span.txt")
			(cd "$root/bench/peers" && "$OUT/jsontext.test" $flags >>"$OUT/jsontext.txt")
		else
			(cd "$root/bench/peers" && "$OUT/jsontext.test" $flags >>"$OUT/jsontext.txt")
			(cd "$root/internal/jsonspan" && "$OUT/span.test" $flags >>"$OUT/span.txt")
		fi
		i=$((i + 1))
	done
fi
# Per benchmark: runs, median and best MB/s and ns/event, median allocs/op.
# Then, round by round (the k-th run of a benchmark in each file is of the
# same round), the time per event of each jsontext job over the span job's,
# and the whole rewriter's time if its span job took the jsontext job's
# time instead, over its time today: median, best and worst round.
grep -h '^BenchmarkJSONJob/' "$OUT/span.txt" "$OUT/jsontext.txt" | awk '
function sort(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
}
function med(a, n) { sort(a, n); return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
{
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkJSONJob\//, "", name)
	if (!(name in n)) order[++k] = name
	c = ++n[name]
	for (f = 3; f < NF; f++) {
		if ($(f+1) == "MB/s") mb[name, c] = $f
		if ($(f+1) == "ns/event") ne[name, c] = $f
		if ($(f+1) == "allocs/op") al[name, c] = $f
	}
}
function ratios(label, num, den, rw,   c, m, r) {
	m = n[num] < n[den] ? n[num] : n[den]
	if (rw != "" && n[rw] < m) m = n[rw]
	if (m == 0) return
	split("", r)
	for (c = 1; c <= m; c++) {
		if (rw == "") r[c] = ne[num, c] / ne[den, c]
		else r[c] = (ne[rw, c] - ne[den, c] + ne[num, c]) / ne[rw, c]
	}
	printf "%-52s %4d %8.2f %8.2f %8.2f\n", label, m, med(r, m), r[1], r[m]
}
END {
	printf "%-36s %4s %10s %10s %12s %12s %10s\n", "benchmark", "runs", "MB/s med", "MB/s best", "ns/ev med", "ns/ev best", "allocs/op"
	for (i = 1; i <= k; i++) {
		b = order[i]; m = n[b]
		split("", x); split("", y); split("", z)
		for (c = 1; c <= m; c++) { x[c] = mb[b, c]; y[c] = ne[b, c]; z[c] = al[b, c] }
		mm = med(x, m); bm = x[m]; ym = med(y, m); by = y[1]; zm = med(z, m)
		printf "%-36s %4d %10.1f %10.1f %12.1f %12.1f %10g\n", b, m, mm, bm, ym, by, zm
	}
	printf "\n%-52s %4s %8s %8s %8s\n", "time per event, paired by round", "runs", "median", "min", "max"
	split("openai anthropic", apis, " ")
	for (a = 1; a <= 2; a++) {
		api = apis[a]
		ratios(api ": jsontext-buffer / span", api "/jsontext-buffer", api "/span", "")
		ratios(api ": jsontext-reader / span", api "/jsontext-reader", api "/span", "")
		ratios(api ": jsontext-buffer-strict / span", api "/jsontext-buffer-strict", api "/span", "")
		ratios(api ": jsontext-buffer / span-novalid", api "/jsontext-buffer", api "/span-novalid", "")
		ratios(api ": jsontext-buffer / span-stdvalid (the rewriter before)", api "/jsontext-buffer", api "/span-stdvalid", "")
		ratios(api ": span / rewriter (share of the job)", api "/span", api "/rewriter", "")
		ratios(api ": rewriter with jsontext-buffer / today", api "/jsontext-buffer", api "/span", api "/rewriter")
	}
}'
