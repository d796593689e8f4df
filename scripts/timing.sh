# Step timing for .ci/run and scripts/test (sourced, not run): `step NAME`
# closes the step before it, printing its time, and opens NAME; `steps_done`
# (on exit) closes the last one and prints every step's time and the total,
# so a run's log says where its minutes went, failed runs included.
timing_start=$SECONDS
timing_name=
timing_since=$SECONDS
timing_rows=()

# step PREFIX NAME…: a new step, announced as "PREFIX NAME…".
step() {
  local prefix=$1
  shift
  step_close
  timing_name="$*"
  timing_since=$SECONDS
  printf '\n%s %s\n' "$prefix" "$*"
}

step_close() {
  [ -n "$timing_name" ] || return 0
  local took=$((SECONDS - timing_since))
  printf '(%s: %d s)\n' "$timing_name" "$took"
  timing_rows+=("$(printf '%6d s  %s' "$took" "$timing_name")")
  timing_name=
}

# steps_done TITLE: every step's time, then the total.
steps_done() {
  step_close
  [ ${#timing_rows[@]} -gt 0 ] || return 0
  printf '\n%s: time per step\n' "$1"
  printf '%s\n' "${timing_rows[@]}"
  printf '%6d s  total\n' $((SECONDS - timing_start))
}
