#!/usr/bin/env bash
# A private CA and a server certificate for the broker's TLS listener (or the table's page):
#   ./make-certs.sh DIR HOST     (HOST: the Pi's name, table-1 or table-1.local, or its address)
set -euo pipefail
dir="${1:-/etc/mosquitto/certs}"
host="${2:-$(hostname)}"
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=dealtable CA" \
    -keyout ca.key -out ca.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=$host" -keyout server.key -out server.csr 2>/dev/null
# Clients check the name they reach the broker by against these: an address is named as an
# address (a DNS name of digits matches no client), and a bare host name also as
# HOST.local, the name mDNS gives the Pi on the network.
if [[ "$host" =~ ^[0-9.]+$ || "$host" == *:* ]]; then
    names="IP:$host"
elif [[ "$host" == *.* ]]; then
    names="DNS:$host"
else
    names="DNS:$host,DNS:$host.local"
fi
printf "subjectAltName=%s,DNS:localhost,IP:127.0.0.1\n" "$names" > san.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
    -extfile san.ext -out server.crt 2>/dev/null
rm -f server.csr san.ext
chmod 600 ca.key server.key
echo "CA: $dir/ca.crt (give it to clients); server: $dir/server.crt, $dir/server.key"
