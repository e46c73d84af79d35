#!/usr/bin/env bash
# make demo DEMO_TASK=duplex: the offline cascade behind `voxeval serve` (OpenAI Realtime protocol, server VAD,
# barge-in) on a free loopback port, driven by `voxeval run --benchmark duplex` through voxeval's own realtime
# client, then the report. The server is stopped however the run ends.
#   tools/demo_duplex.sh BIN OUT LANG LIMIT ANNOTATOR SYSTEM [TTS_ARG...]
set -euo pipefail
bin=$1 out=$2 lang=$3 limit=$4 annotator=$5 system=$6
shift 6
export VOXEVAL_DEMO_SERVE_KEY=demo-local  # the loopback server asks for it; nothing leaves this machine
port=$("$bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/voxeval" serve "$system" --port "$port" --language "$lang" --require-key-env VOXEVAL_DEMO_SERVE_KEY &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
# The cascade's models load before the server listens: wait for the port (bounded).
"$bin/python" - "$port" "$server" <<'PY'
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("voxeval serve exited before it listened (its error is above)")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.5)
sys.exit(f"voxeval serve did not listen on port {port} within 600 s")
PY
"$bin/voxeval" run --benchmark duplex --dataset "$lang-assistant" --split test --limit "$limit" \
  --system "served-cascade=realtime:openai:voxeval-cascade@ws://127.0.0.1:$port/v1/realtime?key_env=VOXEVAL_DEMO_SERVE_KEY" \
  --pace realtime --annotator "$annotator" --out "$out" "$@"
"$bin/voxeval" report "$out"
