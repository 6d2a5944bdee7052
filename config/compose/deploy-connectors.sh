#!/bin/sh
# One-shot deployment of the trial's connectors through the Connect REST API (the compose service
# "deploy" runs it in a curl image; it also works from the host with CONNECT_A/CONNECT_B set to
# http://localhost:8083 and :8084). PUT /connectors/<name>/config creates or updates.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
a="${CONNECT_A:-http://connect-a:8083}"
b="${CONNECT_B:-http://connect-b:8083}"
wait_for() {
    i=0
    until curl -fsS "$1/connector-plugins" | grep -q "$2"; do
        i=$((i + 1))
        if [ "$i" -ge 120 ]; then
            echo "no $2 at $1 after 240 s" >&2
            exit 1
        fi
        sleep 2
    done
}
put() {
    echo "PUT $1/connectors/$2/config"
    curl -fsS -X PUT -H 'Content-Type: application/json' --data @"$3" "$1/connectors/$2/config"
    echo
}
wait_for "$b" SinkSiteConnector
wait_for "$a" SourceSiteConnector
# destination first: its tasks subscribe at the egress relay before batches arrive
put "$b" jetstream-sink "$here/sink-connector.json"
put "$a" jetstream-source "$here/source-connector.json"
echo "deployed; status: curl $a/connectors/jetstream-source/status and $b/connectors/jetstream-sink/status"
