#!/usr/bin/env bash
# The Connect Four study of docs/mcts-study.md: MCTS score against the
# exploration constant c, and against the ratio of iterations.  Every line is a
# ggp tournament; results go to $OUT (default study-results/) as JSON, and the
# line of the first agent ("all" seats) is printed.  About 30 minutes on 2 cores.
#   benchmarks/mcts_study.sh [OUT]
set -euo pipefail
OUT=${1:-study-results}
JOBS=${JOBS:-2}
mkdir -p "$OUT"

run() {  # run NAME GAMES AGENT AGENT
  local name=$1 games=$2
  shift 2
  ggp tournament connect_four "$@" --games "$games" --swap --seed 1 --jobs "$JOBS" \
    --out "$OUT/$name.json" | sed -n 3p
}

echo "# exploration constant, 200 iterations, against c=1.4"
for c in 0.1 0.25 0.5 0.7 1.0 1.4 2.0; do
  run "c$c-i200" 400 "mcts:iterations=200,c=$c" "mcts:iterations=200,c=1.4"
done

echo "# exploration constant, 1000 iterations, against c=1.4"
for c in 0.25 0.5 0.7 1.0 1.4 2.0; do
  run "c$c-i1000" 200 "mcts:iterations=1000,c=$c" "mcts:iterations=1000,c=1.4"
done

echo "# iterations k x 100 against 100 (default c)"
for k in 1 2 4 8 16; do
  run "ratio$k" 200 "mcts:iterations=$((k * 100))" "mcts:iterations=100"
done
