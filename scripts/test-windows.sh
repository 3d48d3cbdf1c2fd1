#!/usr/bin/env bash
# The Windows unit tests of claude/ (job objects, batch shims, executable lookup, CRLF, process
# start and shutdown), cross-compiled for windows/amd64 and run under Wine on this Linux machine.
# See docs/platforms.md.
#
# Wine comes from Debian (wine64, about 20 s to install); when it is missing and apt-get can be
# used (root, amd64), it is installed here. Otherwise the tests are skipped with a message: the
# rest of `make test` does not depend on them. WINE_REQUIRED=1 turns the skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

find_wine() {
  command -v wine64 2>/dev/null || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true
}

skip() {
  echo "test-windows: SKIPPED: $*"
  if [ "${WINE_REQUIRED:-0}" = 1 ]; then exit 1; fi
  exit 0
}

[ "$(uname -s)/$(uname -m)" = Linux/x86_64 ] || skip "Wine runs the windows/amd64 tests on linux/amd64 only"
WINE=$(find_wine)
if [ -z "$WINE" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test-windows: installing wine64 with apt-get"
  log=$(mktemp)
  if ! apt-get install -y --no-install-recommends wine64 >"$log" 2>&1; then
    apt-get update >>"$log" 2>&1 && apt-get install -y --no-install-recommends wine64 >>"$log" 2>&1 || tail -5 "$log"
  fi
  rm -f "$log"
  WINE=$(find_wine)
fi
[ -n "$WINE" ] || skip "Wine is not installed (Debian: apt-get install wine64)"

export WINEPREFIX="${WINEPREFIX:-${CLAUDE_AGENT_ACP_DEPS:-$PWD/.deps}/wine}" WINEDEBUG=-all
"$GO" run ./internal/tools/wineprep -wine "$WINE" -prefix "$WINEPREFIX"

# The Windows-specific tests, and the process tests that go through the platform code. Tests that
# need a Unix shell, /proc or a catchable SIGTERM are left out (docs/platforms.md).
RUN='Windows|CRLF|Batch|CmdExe|QuoteArg|TestEchoTurnAndInitialize|TestCrashMidTurn|TestStartupFailures|TestStartContextCancel|TestCloseEscalation|TestUnreadMessagesDoNotBlockClose|TestConcurrentSendsWriteWholeLines|TestControlRequests|TestCanUseToolRoundTrip|TestInterruptWhileConsumerIsBehind|TestCancelFromCLI|TestRequestContextCancel'
SKIP='TestCloseEscalation/SIGKILL'
GOOS=windows GOARCH=amd64 "$GO" test -exec "$WINE" -count=1 -timeout 5m -run "$RUN" -skip "$SKIP" ./claude/
