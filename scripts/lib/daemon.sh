# Shared by the benchmark scripts: one coderd at a time, started on a root and stopped at exit.
# The sourcing script sets `coderd` (the binary), `socket` and `work` (logs go to $work/coderd.log).
#
#   daemon_start ROOT [CONFIG]   stops the previous daemon, starts one, waits for its socket
#   daemon_stop                  stops it (also run at exit)
#   daemon_rss_mib               its resident set, MiB
# `pid` holds the running daemon's pid (empty when none).

pid=
daemon_stop() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
  fi
}
trap daemon_stop EXIT

daemon_start() {
  daemon_stop
  local config=()
  [[ -z ${2:-} ]] || config=(--config "$2")
  "$coderd" --root "$1" "${config[@]}" --socket "$socket" --log warn --log-file "$work/coderd.log" &
  pid=$!
  for _ in $(seq 500); do [[ -S $socket ]] && return 0; sleep 0.02; done
  echo "coderd did not start; see $work/coderd.log" >&2
  exit 1
}

daemon_rss_mib() { awk '{printf "%d", $2 * 4096 / 1048576}' "/proc/$pid/statm"; }
