#!/bin/sh
# Certificates for the docker-compose trial: one CA, a server certificate per relay (its service
# name as DNS name) and a client certificate for the connectors' tasks (mutual TLS on every relay
# link). PEM files in config/compose/tls/, valid 30 days. Needs openssl. Trial use only: the CA key
# stays next to the certificates.
set -eu
dir="$(cd "$(dirname "$0")" && pwd)/tls"
mkdir -p "$dir"
cd "$dir"
days=30
openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=jetstream-trial-ca" \
    -keyout ca.key -out ca.pem 2>/dev/null
issue() { # name, subjectAltName
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$1.key" -out "$1.csr" 2>/dev/null
    printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$2" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days "$days" \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
    # the relay and the connectors read PKCS#8 keys
    openssl pkcs8 -topk8 -nocrypt -in "$1.key" -out "$1.key.pk8" && mv "$1.key.pk8" "$1.key"
    rm -f "$1.csr" "$1.ext"
}
issue relay-ingress "DNS:relay-ingress,DNS:localhost"
issue relay-egress "DNS:relay-egress,DNS:localhost"
issue connector "DNS:connector"
# readable by the relay image's non-root user and the Connect workers
chmod 0644 ./*.pem ./*.key
echo "certificates in $dir"
