#!/usr/bin/env bash
# CTest's BrowserCharts: tests/app/browser_test.py under the first python3
# that has PIL (python3-pil), with the arguments given (DDSMC SOURCE_DIR WORK_DIR).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
exec "$("$here/scripts/plot_python" PIL)" "$here/tests/app/browser_test.py" "$@"
