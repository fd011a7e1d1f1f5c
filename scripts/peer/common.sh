# Settings and helpers shared by the scripts in scripts/peer/ (sourced, not executed).
#
# The peer is chap-core, the production modeling service, run on loopback for the tests in
# tests/peer/. Its Python environment lives in a cache outside the repository and is reused by
# every run; each run keeps its database, logs and pid files in a fresh state folder.
#
# Environment:
#   CHAPLAB_PEER_VERSION   chap-core release (2.5.1)
#   CHAPLAB_PEER_CACHE     the install cache (${XDG_CACHE_HOME:-~/.cache}/chaplab/peer-VERSION)
#   CHAPLAB_PEER_PYTHON    a Python 3.13 interpreter (default: found on PATH or in pyenv)
#   CHAPLAB_PEER_PORT      port of the REST API (default: a free one)
#   CHAPLAB_PEER_REDIS_PORT port of Redis (default: a free one)
#   CHAPLAB_PEER_FAKEREDIS=1 use fakeredis even when redis-server is installed

CHAPLAB_PEER_VERSION="${CHAPLAB_PEER_VERSION:-2.5.1}"
CHAPLAB_PEER_CACHE="${CHAPLAB_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chaplab/peer-$CHAPLAB_PEER_VERSION}"
PEER_VENV="$CHAPLAB_PEER_CACHE/venv"
# Newer sqlmodel / SQLAlchemy releases break chap-core's dataset inserts ("Datetime values must
# have timezone information"); fakeredis (with lupa for its Lua scripting) stands in for Redis.
PEER_REQUIREMENTS=(
    "chap-core==$CHAPLAB_PEER_VERSION"
    "sqlmodel==0.0.39"
    "SQLAlchemy==2.0.50"
    "fakeredis>=2.20"
    "lupa>=2.0"
)

say() { printf '[peer] %s\n' "$*" >&2; }
fail() {
    say "ERROR: $*"
    exit 1
}

# A free TCP port on loopback, chosen by the kernel.
free_port() {
    "$PEER_VENV/bin/python" -c 'import socket
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])'
}

# The install is usable when its interpreter imports the pinned stack and the API module.
install_is_usable() {
    [ -x "$PEER_VENV/bin/python" ] || return 1
    "$PEER_VENV/bin/python" - "$CHAPLAB_PEER_VERSION" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version

assert version("chap-core") == sys.argv[1]
assert version("sqlmodel") == "0.0.39"
assert version("SQLAlchemy") == "2.0.50"
import celery, fakeredis, lupa, uvicorn  # noqa: E401, F401
import chap_core.rest_api.app  # noqa: F401
PY
}

# State of one running peer: STATE/{data,logs,pids}; STATE/env holds its settings.
state_paths() {
    PEER_DATA="$1/data"
    PEER_LOGS="$1/logs"
    PEER_PIDS="$1/pids"
}

# The pid recorded for NAME, when that process is alive and not a zombie.
live_pid() {
    local file="$PEER_PIDS/$1.pid" pid stat
    [ -s "$file" ] || return 1
    pid="$(cat "$file")"
    stat="$(ps -o stat= -p "$pid" 2>/dev/null)" || return 1
    [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ] || return 1
    echo "$pid"
}

# Whether any live (non-zombie) process is left in process group PGID.
group_alive() {
    ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ {found = 1} END {exit !found}'
}
