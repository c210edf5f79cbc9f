/**
 * The capping log writer: a small /bin/sh script that runs a stage's (or a runtime's) command as its child
 * and appends the child's output to the log file, up to a limit; past it the log says it was truncated and
 * the rest is read and dropped, so the command goes on without being blocked or killed by a full pipe.
 *
 * Why a process of its own, and not a pipe into the server: a running preview must outlive a restart of the
 * server, so nothing may make it depend on the server process. The writer is the leader of the command's
 * process group (the handle the executor records), so it lives exactly as long as the group is stopped
 * together with it, and a restarted server finds it as before. It runs as the server's user and keeps the log
 * file's descriptor to itself; the command may run as another user (the build's own uid, through setpriv), which
 * then can neither signal the writer nor reach its descriptor through /proc, so it cannot write past the cap.
 * setpriv's --no-new-privs keeps every process of the command at that uid: a setuid program (su, mount) runs
 * without its privilege, so nothing of a build can take another uid and escape being ended with it.
 *
 * Why the shell and coreutils, not Node.js: a writer runs for every stage and for the whole life of every
 * preview. A Node.js writer cost about 75 ms of CPU to start and 42 MB of memory while it ran; this one is
 * /bin/sh with `head` or `cat` (a few ms, 2 MB), and the server, which forks it, spends the same either way.
 * `head` writes through stdio, which would hold a file's output back until it is full or ends; `stdbuf -o0`
 * makes it write each piece as it reads it, so the log (and its live stream) keeps up with the command.
 *
 * The command's output reaches the capper through a FIFO made in a private temporary folder and unlinked
 * before anything starts, so only the command's group ever holds it. The writer and the capper ignore
 * SIGHUP/SIGINT/SIGTERM (the group gets SIGTERM when a stage is stopped: the command decides how to end, the
 * writer keeps its log); the command gets every signal back to its default (`env --default-signal`).
 * The command is started before the writer ignores those signals, the capper after: a process forked after
 * `trap ''` starts with SIGTERM ignored, and a stop sent before its `env --default-signal` ran was lost (a
 * cancel right after a stage started then waited the whole grace period for its SIGKILL). A stop that comes
 * before the trap ends the writer too, before the command has had anything to log.
 *
 * argv after the script: <limit bytes> <room bytes> <mode: exit|eof> <uid or -> <gid or -> <file> [args...];
 * the log is its stdout and stderr. `room` is what the limit leaves after what the log already holds.
 * - mode `exit` (stages): once the command exits, what is left in the pipe is read for up to a second, then the
 *   writer exits with the command's status (background processes still holding the pipe are the executor's to stop).
 * - mode `eof` (runtimes): the writer stays as long as anything of the group holds the pipe, so a runtime whose
 *   shell started it in the background keeps its log.
 * A command ended by a signal ends the writer by the same signal, so the executor sees a kill as a kill (as
 * with any shell, a command that exits with 128 + n looks the same).
 */
export const LOG_WRITER_SCRIPT = String.raw`
_lw_limit=$1 _lw_room=$2 _lw_mode=$3 _lw_uid=$4 _lw_gid=$5
shift 5
_lw_dir=$(mktemp -d) || exit 125
mkfifo -m 600 "$_lw_dir/output" || exit 125
# The read-write descriptor keeps the FIFO open, so neither end's open blocks; then the name goes.
exec 3<>"$_lw_dir/output" 4<"$_lw_dir/output" 5>"$_lw_dir/output" 3>&-
rm -r "$_lw_dir"
# Its output waits in the FIFO (held open by descriptor 4) until the capper reads it.
if [ "$_lw_uid" = - ]; then
  env --default-signal -- "$@" >&5 2>&5 4<&- 5>&- &
else
  setpriv --reuid="$_lw_uid" --regid="$_lw_gid" --clear-groups --no-new-privs -- env --default-signal -- "$@" >&5 2>&5 4<&- 5>&- &
fi
_lw_command=$!
trap '' HUP INT TERM
{
  stdbuf -o0 head -c "$_lw_room"
  if [ "$(head -c 1 | wc -c)" -ne 0 ]; then
    printf '\n[builds] The log reached its limit of %s bytes (stage_log_limit_mb): the rest of this output is not kept.\n' "$_lw_limit"
    exec cat >/dev/null
  fi
} <&4 4<&- 5>&- &
_lw_capper=$!
exec 4<&- 5>&-
wait "$_lw_command" 2>/dev/null
_lw_status=$?
_lw_capper_running() {
  read -r _lw_stat 2>/dev/null <"/proc/$_lw_capper/stat" || return 1
  case $_lw_stat in *") Z "*) return 1 ;; esac
}
if [ "$_lw_mode" = exit ]; then
  _lw_tries=0
  while _lw_capper_running && [ "$_lw_tries" -lt 100 ]; do
    sleep 0.01
    _lw_tries=$((_lw_tries + 1))
  done
  _lw_capper_running || wait "$_lw_capper" 2>/dev/null
else
  wait "$_lw_capper" 2>/dev/null
fi
if [ "$_lw_status" -gt 128 ] && _lw_signal=$(kill -l "$_lw_status" 2>/dev/null); then
  trap - HUP INT TERM
  kill -s "$_lw_signal" $$
fi
exit "$_lw_status"
`;

/** The command line that runs `file args` under the capping writer, for a log that already holds `loggedBytes`. */
export function logWriterCommand(options: {
  limitBytes: number;
  loggedBytes: number;
  mode: "exit" | "eof";
  user?: { uid: number; gid: number } | null;
  file: string;
  args: string[];
}): { file: string; args: string[] } {
  const { limitBytes, loggedBytes, mode, user, file, args } = options;
  const limit = Math.floor(limitBytes);
  return {
    file: "/bin/sh",
    args: [
      "-c",
      LOG_WRITER_SCRIPT,
      "log-writer",
      String(limit),
      String(Math.max(0, limit - loggedBytes)),
      mode,
      user ? String(user.uid) : "-",
      user ? String(user.gid) : "-",
      file,
      ...args,
    ],
  };
}
