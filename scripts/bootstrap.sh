#!/usr/bin/env bash
# Install everything bipub needs on Debian 12 (as root) and then build the demo or run the tests.
#
#   bash scripts/bootstrap.sh demo   # install, build the demo site in both languages
#   bash scripts/bootstrap.sh test   # install, then ruff, mypy and the full test suite
#
# System packages: Chromium (browser tests, Mermaid diagrams), Noto CJK fonts and HarfBuzz subsetting (Korean PDFs),
# Pango (WeasyPrint), poppler-utils (PDF checks), gettext tools. Python packages go into .venv with
# the exact versions of requirements.lock (pyproject.toml holds compatible ranges).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-demo}"
APT_PACKAGES=(chromium fonts-noto-cjk fonts-dejavu-core libharfbuzz-subset0 libpango-1.0-0
  libpangoft2-1.0-0 poppler-utils gettext python3-venv)

need_apt=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "bootstrap: installing system packages: ${need_apt[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Mermaid diagrams (issue 19): mermaid-cli from npm, exact versions from tools/mermaid/package-lock.json
# (`npm ci`), drawing in the Chromium above: PUPPETEER_SKIP_DOWNLOAD, so no browser is downloaded.
# Debian 12's nodejs (18.20) is recent enough.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "bootstrap: installing system packages: nodejs npm" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
# npm ci runs in the background while the Python packages install (both mostly wait on the
# network: on a fresh machine this saves the shorter of the two); its output is shown, and its
# exit status checked, where a mode first needs mermaid-cli (`mermaid_wait`).
# The installed tree (34,000 files, ~500 MB: ~40 s of npm ci, 30 of them system time) is kept
# once per version of package.json and package-lock.json in the user's cache, as pip and uv
# keep their wheels, and tools/mermaid/node_modules is a link to it: a second clone on the
# same machine (a CI checkout) links it instead of installing it again. It is installed into a
# temporary folder and renamed into place whole, so a killed install never leaves a tree
# that looks complete; where that cache cannot be written, it is installed in tools/mermaid.
mermaid_stamp=tools/mermaid/node_modules/.bipub-installed
mermaid_want="$(cat tools/mermaid/package.json tools/mermaid/package-lock.json | sha256sum | cut -c1-16)"
mermaid_pid=""
mermaid_kept="${XDG_CACHE_HOME:-$HOME/.cache}/bipub-bootstrap/mermaid-$mermaid_want"
# npm ci of tools/mermaid's lock, in the folder given (no browser downloaded)
mermaid_npm_ci() {
  (cd "$1" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}
if [ ! -f "$mermaid_stamp" ] || [ "$(cat "$mermaid_stamp")" != "$mermaid_want" ]; then
  if [ -f "$mermaid_kept/node_modules/.bipub-installed" ]; then
    echo "bootstrap: mermaid-cli installed already ($mermaid_kept): linked" >&2
    rm -rf tools/mermaid/node_modules
    ln -s "$mermaid_kept/node_modules" tools/mermaid/node_modules
  else
    echo "bootstrap: installing mermaid-cli (tools/mermaid, npm ci)" >&2
    mermaid_log="$(mktemp)"
    (
      set -e
      rm -rf tools/mermaid/node_modules
      if mkdir -p "$(dirname "$mermaid_kept")" 2>/dev/null \
        && work="$(mktemp -d "$(dirname "$mermaid_kept")/.install.XXXXXX" 2>/dev/null)"; then
        cp tools/mermaid/package.json tools/mermaid/package-lock.json "$work/"
        # (a failed install leaves nothing in the cache: its folder is removed, and it fails)
        mermaid_npm_ci "$work" || { status=$?; rm -rf "$work"; exit "$status"; }
        echo "$mermaid_want" > "$work/node_modules/.bipub-installed"
        # (another bootstrap may have put the same version there meanwhile: then that one;
        # any other failure of the rename is said, and fails)
        if ! mv -T "$work" "$mermaid_kept" 2>/dev/null; then
          rm -rf "$work"
          if [ ! -f "$mermaid_kept/node_modules/.bipub-installed" ]; then
            echo "bootstrap: mermaid-cli installed but not moved to $mermaid_kept"
            exit 1
          fi
        fi
        ln -s "$mermaid_kept/node_modules" tools/mermaid/node_modules
      else
        echo "bootstrap: note: $(dirname "$mermaid_kept") cannot be written: mermaid-cli installed in tools/mermaid"
        mermaid_npm_ci tools/mermaid
      fi
    ) >"$mermaid_log" 2>&1 &
    mermaid_pid=$!
    # never leave it running behind us (a failed Python install exits early)
    trap 'if [ -n "$mermaid_pid" ]; then wait "$mermaid_pid" 2>/dev/null || true; rm -f "$mermaid_log"; fi' EXIT
  fi
fi
mermaid_wait() {
  [ -n "$mermaid_pid" ] || return 0
  local status=0
  wait "$mermaid_pid" || status=$?
  mermaid_pid=""
  cat "$mermaid_log" >&2
  rm -f "$mermaid_log"
  if [ "$status" -ne 0 ]; then
    echo "bootstrap: npm ci failed in tools/mermaid (exit status $status)" >&2
    return 1
  fi
  echo "$mermaid_want" > "$mermaid_stamp"
}

# The venv's Python: $PYTHON if set, else Debian's own python3 (3.11 on Debian 12), else the
# first python3 on PATH. Debian builds its Python with profile-guided and link-time optimization;
# a python3 found first on PATH often has neither (pyenv builds without them unless asked): the
# same bipub build took 15-27 % more CPU under pyenv's 3.11.7 than under Debian's 3.11.2 on the
# benchmark machine (bench/RESULTS.md).
if [ -n "${PYTHON:-}" ]; then
  PY="$PYTHON"
elif /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  PY=/usr/bin/python3
else
  PY=python3
fi
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv with $PY ($("$PY" --version 2>&1))" >&2
  "$PY" -m venv .venv
else
  have="$(readlink -f "$(.venv/bin/python -c 'import sys; print(sys._base_executable)')")" || true
  want_py="$(readlink -f "$(command -v "$PY")")" || true
  if [ "$have" != "$want_py" ]; then
    echo "bootstrap: note: .venv runs $have, not $PY ($want_py); remove .venv to make it again" >&2
  fi
fi
stamp=.venv/.bipub-installed
want="$(cat pyproject.toml requirements.lock | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing Python packages (pinned)" >&2
  # the installer: uv (pinned), which resolves and installs the same pins as pip in about a
  # third of the time (~8 s against ~23 s on the CI machine, wheels cached); if uv itself
  # cannot be installed, pip (made the version below first) does the install, and this says so
  installer=(.venv/bin/python -m pip install -q --no-compile --disable-pip-version-check)
  installer_name=pip
  if uv_log="$(.venv/bin/python -m pip install -q --no-compile --disable-pip-version-check "uv==0.13.9" 2>&1)"; then
    installer=(.venv/bin/uv pip install -q --python .venv/bin/python)
    installer_name=uv
  else
    uv_why="$(printf '%s\n' "$uv_log" | grep -v -e '^WARNING: Location' -e '^$' | tail -n 1)"
    echo "bootstrap: note: uv could not be installed (${uv_why:-no message}); installing with pip (slower)" >&2
    .venv/bin/python -m pip install -q --no-compile --disable-pip-version-check --upgrade "pip==26.3" 2>&1 | grep -v '^WARNING: Location' >&2 || true
  fi
  # exact versions from requirements.lock (pyproject.toml holds compatible ranges); a failed
  # install stops here, its output shown, and leaves no stamp
  pip_log="$("${installer[@]}" -c requirements.lock -e ".[dev]" 2>&1)" \
    || { printf '%s\n' "$pip_log" >&2; echo "bootstrap: $installer_name install failed" >&2; exit 1; }
  printf '%s\n' "$pip_log" | grep -v -e '^WARNING: Location' -e '^$' >&2 || true
  # the packages' bytecode, compiled on every core (`--no-compile` above: pip compiles each
  # package as it installs it, on one core, ~12 CPU s for these; every test process and
  # subprocess reads the .pyc, and under PYTHONDONTWRITEBYTECODE=1 none would be written later)
  # (not pip's, setuptools' or mypyc's own files: no test or bipub command imports them;
  # _distutils_hack is: setuptools' .pth imports it at every start of the venv's Python)
  .venv/bin/python -m compileall -q -j0 -x '/site-packages/(pip|setuptools|pkg_resources|mypyc)/' "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" >/dev/null \
    || echo "bootstrap: note: some files of the Python packages did not compile (pip skips such files too; they are compiled when imported)" >&2
  .venv/bin/python -c "import bipub, weasyprint, deepl, markdown_it" || { echo "bootstrap: Python install failed" >&2; exit 1; }
  echo "$want" > "$stamp"
fi
# (npm ci may still run: each mode waits for it where it first needs mermaid-cli)

# bipub's own modules as bytecode, as a wheel install leaves them (an editable install does not,
# and with PYTHONDONTWRITEBYTECODE=1 every command would compile them again: ~0.15 s a start)
.venv/bin/python -m compileall -q src/bipub >/dev/null

case "$mode" in
  demo)
    mermaid_wait || exit 1
    .venv/bin/bipub build
    echo
    echo "Demo built into site/ (Korean: site/ko/, English: site/en/, CV PDFs: site/pdf/, JSON API: site/api/, site/llms.txt)."
    echo "Preview it with:  .venv/bin/bipub serve   →  http://127.0.0.1:8000/  (live reload)"
    echo "or serve site/ by its path from any static web server (python3 -m http.server -d site;"
    echo "links are root-relative, like on the real host; each build swaps site/ whole)."
    ;;
  test)
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .
    # mypy (one core, ~10 s with no cache) checks beside the tests: it fills the cores the
    # tests leave idle (their start, waits, the last file) instead of running before them;
    # its report follows the tests', and either failing fails the run
    mypy_log="$(mktemp)"
    .venv/bin/mypy >"$mypy_log" 2>&1 &
    mypy_pid=$!
    # the test files' assertion-rewritten bytecode, made once here and read by every test
    # process: pytest reads its cached .pyc (tests/**/__pycache__/*-pytest-*.pyc) even under
    # PYTHONDONTWRITEBYTECODE=1 but then writes none, so each process rewrote and compiled all
    # the test files again (~5 of its ~9.5 CPU s of collection); this one collection (~10 CPU s,
    # beside mypy) writes them and the test helpers' .pyc: ~5 CPU s less in all with 3 workers.
    # Its output is not shown: a test file that fails to import fails the run below.
    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python -m pytest -q -p no:cacheprovider --collect-only \
      >/dev/null 2>&1 || true
    # the tests draw diagrams with mermaid-cli: npm ci (begun before the Python packages) is done
    # by now on a fresh machine more often than not; ruff, mypy and the collection ran meanwhile
    if ! mermaid_wait; then
      kill "$mypy_pid" 2>/dev/null || true
      wait "$mypy_pid" 2>/dev/null || true
      rm -f "$mypy_log"
      exit 1
    fi
    # one test process per core and one more (pytest-xdist; $BIPUB_TEST_WORKERS to choose): a
    # fifth of a test process's time is spent waiting (Chromium, servers, subprocesses starting,
    # sockets), and the extra process uses the core meanwhile; each test file runs in one process:
    # a file's module-scoped fixtures (built sites) are built once; the slowest files first
    # (tests/run_order.json; no reorder by xdist) (docs/architecture.md, "Developing bipub")
    workers="${BIPUB_TEST_WORKERS:-$(( $(.venv/bin/python -c 'import os; print(len(os.sched_getaffinity(0)))') + 1 ))}"
    # glibc's malloc on transparent huge pages (unless GLIBC_TUNABLES is set already): a test
    # process that built a site with Korean pages holds Kiwi's model (~320 MB, render/search.py),
    # and every build forks (prescan, checker, workers): on 4 KB pages each fork and exit copied
    # and dropped ~80,000 page-table entries, ~15 ms of CPU; on 2 MB pages ~4 ms. Output unchanged.
    tests_status=0
    GLIBC_TUNABLES="${GLIBC_TUNABLES-glibc.malloc.hugetlb=1}" \
      .venv/bin/python -m pytest -q -p no:cacheprovider -n "$workers" --dist loadfile --no-loadscope-reorder \
      || tests_status=$?
    mypy_status=0
    wait "$mypy_pid" || mypy_status=$?
    cat "$mypy_log"
    rm -f "$mypy_log"
    if [ "$mypy_status" -ne 0 ]; then
      echo "bootstrap: mypy failed (exit status $mypy_status)" >&2
      exit 1
    fi
    exit "$tests_status"
    ;;
  *)
    mermaid_wait || true
    echo "usage: bash scripts/bootstrap.sh demo|test" >&2
    exit 2
    ;;
esac
