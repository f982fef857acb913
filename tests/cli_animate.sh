#!/usr/bin/env bash
# nsdyn animate and [plot] animate (core/src/animate.c): the video has the
# frames and the duration the time scale asks for, read back by ffprobe;
# errors are stated. usage: cli_animate.sh NSDYN CONFIG_DIR
set -uo pipefail
nsdyn=$1 configs=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
probe() { # file field: one field of the video stream, frames counted
    ffprobe -v error -count_frames -select_streams v:0 -show_entries "stream=$2" \
        -of default=nw=1:nk=1 "$1"
}
# A 1 s run of the bouncing ball sampled every 1e-3 s.
ball=$configs/bouncing_ball_newton.toml
"$nsdyn" run "$ball" -o "$tmp/run" -q --set run.t_end=1 --set plot.enabled=false \
    || fail "the run"
# Frames: floor((t1 - t0) slow fps) + 1, each 1/fps s long.
for case in "5 1 6" "10 2 21" "7 0.5 4"; do
    read -r fps slow want <<< "$case"
    out=$tmp/v_${fps}_$slow.mp4
    "$nsdyn" animate "$tmp/run" -q --fps "$fps" --slow="$slow" -o "$out" --trails 2 \
        || { fail "animate --fps $fps --slow $slow"; continue; }
    frames=$(probe "$out" nb_read_frames)
    [[ $frames == "$want" ]] || fail "fps $fps slow $slow: $frames frames, want $want"
    dur=$(probe "$out" duration)
    awk -v d="$dur" -v n="$want" -v f="$fps" 'BEGIN {exit !(d > n / f - 0.5 / f && d < n / f + 0.5 / f)}' \
        || fail "fps $fps slow $slow: duration $dur s, want $want/$fps s"
    [[ $(probe "$out" codec_name) == h264 ]] || fail "not H.264"
done
# GIF, and the [plot] animate key of a run.
"$nsdyn" animate "$tmp/run" -q --fps 5 -o "$tmp/v.gif" || fail "animate to gif"
[[ $(probe "$tmp/v.gif" nb_read_frames) == 6 ]] || fail "gif: $(probe "$tmp/v.gif" nb_read_frames) frames, want 6"
"$nsdyn" run "$ball" -o "$tmp/run2" -q --set run.t_end=0.4 --set plot.snapshots=0 \
    --set plot.animate=gif --set plot.animate_fps=10 || fail "run with plot.animate"
[[ $(probe "$tmp/run2/animation.gif" nb_read_frames) == 5 ]] || fail "plot.animate: frames"
# Errors: exit status and the reason.
expect() { # status "message part" args...
    local want=$1 text=$2
    shift 2
    local msg
    msg=$("$@" 2>&1)
    local rc=$?
    [[ $rc == "$want" && $msg == *"$text"* ]] || fail "$*: exit $rc, '$msg'"
}
expect 2 "run record '$tmp/run/nothing/run.toml'" "$nsdyn" animate "$tmp/run/nothing"
expect 2 "expected a file name ending in .mp4 or .gif" "$nsdyn" animate "$tmp/run" -o x.avi
expect 2 "--fps '0': expected a whole number from 1 to 60" "$nsdyn" animate "$tmp/run" --fps 0
expect 2 "--slow 'x'" "$nsdyn" animate "$tmp/run" --slow x
expect 4 "cannot run ffmpeg" env PATH=/nonexistent "$nsdyn" animate "$tmp/run" -o "$tmp/z.mp4"
[[ ! -e $tmp/z.mp4 && -z $(ls -d "$tmp"/z.mp4.* 2> /dev/null) ]] || fail "a failed animate left files"
echo "$fails failure(s)"
[[ $fails == 0 ]]
