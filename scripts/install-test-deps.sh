#!/usr/bin/env bash
# Installs the system packages that `npm test` needs on Debian or Ubuntu (apt), and only those that are missing:
# running it again changes nothing. Uses sudo only when not run as root. Node.js (>= 20.10) and `npm ci` are not
# its business; .ci/run calls it before them.
#
#   scripts/install-test-deps.sh           install what is missing
#   scripts/install-test-deps.sh --check   list what is missing and exit 1 if anything is, installing nothing
#
# What the tests read, and the package that provides it:
#   ffmpeg, ffprobe                                     ffmpeg        (media fixtures, decoding checks; the package's
#                                                                      own ffmpeg comes from @ffmpeg-installer)
#   espeak-ng                                           espeak-ng     (synthesized test speech)
#   /usr/share/sounds/alsa/*.wav                        alsa-utils    (recorded speech: the lip-sync tests)
#   /usr/share/asterisk/sounds/en_US_f_Allison/*.g722   asterisk-core-sounds-en-g722 (recorded speech: the pause test)
#   redis-server (and redis-cli for .ci/run)            redis-server  (Redis store and queue tests)
#   /usr/bin/chromium                                   chromium      (the demo page's browser test, through
#                                                                      playwright-core; CHROMIUM_PATH overrides)
#   /usr/share/doc/libdlib19.1/examples/faces/*         libdlib19.1   (real portraits: the photo-avatar tests)
set -euo pipefail

check_only=false
case "${1:-}" in
  --check) check_only=true ;;
  '') ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

DLIB_FACES=/usr/share/doc/libdlib19.1/examples/faces/bald_guys.jpg

# Prints the packages whose files the tests would not find, one a line.
missing_packages() {
  { command -v ffmpeg && command -v ffprobe; } >/dev/null 2>&1 || echo ffmpeg
  command -v espeak-ng >/dev/null 2>&1 || echo espeak-ng
  [ -f /usr/share/sounds/alsa/Front_Center.wav ] || echo alsa-utils
  [ -f /usr/share/asterisk/sounds/en_US_f_Allison/vm-goodbye.g722 ] || echo asterisk-core-sounds-en-g722
  { command -v redis-server && command -v redis-cli; } >/dev/null 2>&1 || echo redis-server
  [ -x /usr/bin/chromium ] || echo chromium
  [ -f "$DLIB_FACES" ] || echo libdlib19.1
}

mapfile -t missing < <(missing_packages)
if [ ${#missing[@]} -eq 0 ]; then
  echo "test dependencies: all present"
  exit 0
fi
if $check_only; then
  echo "test dependencies missing: ${missing[*]} (run $0 to install them)"
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "$0: apt-get not found; install these packages (Debian names) by other means: ${missing[*]}" >&2
  exit 1
fi

# Slim and minimized images tell dpkg to leave out /usr/share/doc (a path-exclude in /etc/dpkg/dpkg.cfg.d/), where
# libdlib19.1 puts its example photos. Let that one folder in; the file sorts after the images' own, so it wins.
if [[ " ${missing[*]} " == *" libdlib19.1 "* ]] && grep -qs '^path-exclude=/usr/share/doc' /etc/dpkg/dpkg.cfg.d/*; then
  include=/etc/dpkg/dpkg.cfg.d/zz-virtual-anchor-test-deps
  if ! grep -qs 'libdlib19.1' "$include"; then
    echo "allowing /usr/share/doc/libdlib19.1 in dpkg's path-exclude ($include)"
    echo 'path-include=/usr/share/doc/libdlib19.1/*' | as_root tee "$include" >/dev/null
  fi
fi

echo "installing: ${missing[*]}"
as_root apt-get update -qq

# A package with no install candidate (Ubuntu ships chromium as a snap, for example) fails here with its name
# rather than in the middle of apt-get's output.
unavailable=()
for package in "${missing[@]}"; do
  candidate=$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ { print $2 }')
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then unavailable+=("$package"); fi
done
if [ ${#unavailable[@]} -gt 0 ]; then
  echo "$0: no apt package available for: ${unavailable[*]}" >&2
  [[ " ${unavailable[*]} " == *" chromium "* ]] &&
    echo "  chromium: install a Chromium build by other means and set CHROMIUM_PATH to its binary for the browser test" >&2
  exit 1
fi

as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null

# libdlib19.1 already installed while /usr/share/doc was excluded: reinstall it now that its photos are let in.
if [ ! -f "$DLIB_FACES" ] && dpkg -s libdlib19.1 >/dev/null 2>&1; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall libdlib19.1 >/dev/null
fi

mapfile -t still < <(missing_packages)
if [ ${#still[@]} -gt 0 ]; then
  echo "$0: installed, yet still missing what the tests read: ${still[*]}" >&2
  exit 1
fi
echo "test dependencies: installed ${missing[*]}"
