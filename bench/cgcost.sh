#!/bin/bash
# cgcost.sh BENCHBIN BENCHREGEX: CPU instructions per op of one benchmark,
# counted by callgrind (the 30-op run minus the 10-op run, over 20), so that
# ratios between two benchmarks do not move with a shared machine's load.
# Build BENCHBIN with: go test -c -o /tmp/bench.test ./bench
set -euo pipefail
bin=$(realpath "$1")
re=$2
cd "$(dirname "$0")" # benchmarks read ../testdata
count() {
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 GOGC=off valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" -test.run '^$' -test.bench "$re" -test.benchtime "${1}x" 2>&1 >/dev/null | awk '/Collected/ {print $4}'
}
a=$(count 10)
b=$(count 30)
echo $(((b - a) / 20))
