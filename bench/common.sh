# Sourced by the bench/ scripts: their shared options and measuring helpers.
# parse_bench_args NAME "$@" sets `pipeline` (--pipeline, default configs/default.yaml) and
# `runs` (--runs, default 5); median reads numbers on stdin; seconds CMD... times a command.
parse_bench_args() {
  local name=$1
  shift
  pipeline=configs/default.yaml
  runs=5
  while (($#)); do
    case "$1" in
      --pipeline) pipeline=$2; shift 2 ;;
      --runs) runs=$2; shift 2 ;;
      *) echo "usage: bench/$name [--pipeline FILE] [--runs N]" >&2; exit 2 ;;
    esac
  done
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# Bash's own clock (EPOCHREALTIME, microseconds): `date` in a subshell would add two process
# starts to every figure, several milliseconds on a virtual machine.
seconds() {
  local start=${EPOCHREALTIME/./}
  "$@" >/dev/null 2>&1
  local end=${EPOCHREALTIME/./}
  awk -v us=$((end - start)) 'BEGIN {print us / 1e6}'
}
