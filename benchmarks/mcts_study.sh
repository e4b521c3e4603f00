#!/usr/bin/env bash
# The Connect Four study of docs/mcts-study.md: MCTS score against the
# exploration constant c, and against the ratio of iterations.  Every line is a
# ggp tournament; results go to $OUT (default study-results/) as JSON, and the
# line of the first agent ("all" seats) is printed.  About an hour on 2 cores.
#   benchmarks/mcts_study.sh [OUT]
set -euo pipefail
OUT=${1:-study-results}
JOBS=${JOBS:-2}
mkdir -p "$OUT"

run() {  # run NAME GAMES SEED AGENT AGENT
  local name=$1 games=$2 seed=$3
  shift 3
  ggp tournament connect_four "$@" --games "$games" --swap --seed "$seed" --jobs "$JOBS" \
    --out "$OUT/$name.json" | sed -n 3p
}

echo "# exploration constant, 200 iterations, against c=1.4"
for c in 0.1 0.25 0.5 0.7 1.0 1.4 2.0; do
  run "c$c-i200" 400 1 "mcts:iterations=200,c=$c" "mcts:iterations=200,c=1.4"
done

echo "# exploration constant, 1000 iterations, against c=1.4"
for c in 0.25 0.5 0.7 1.0 1.4 2.0; do
  run "c$c-i1000" 200 1 "mcts:iterations=1000,c=$c" "mcts:iterations=1000,c=1.4"
done

echo "# head to head: c=0.7 against c=0.5, then c=0.5 against 0.7 and 1.0 at 3000 iterations"
for i in 200 1000; do
  run "h2h-$i" 400 2 "mcts:iterations=$i,c=0.7" "mcts:iterations=$i,c=0.5"
done
for c in 0.7 1.0; do
  run "h2h3000-$c" 200 3 "mcts:iterations=3000,c=0.5" "mcts:iterations=3000,c=$c"
done

echo "# iterations k x 100 against 100 (default c)"
for k in 1 2 4 8 16; do
  run "ratio$k" 200 1 "mcts:iterations=$((k * 100))" "mcts:iterations=100"
done
