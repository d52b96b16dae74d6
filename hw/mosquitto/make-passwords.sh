#!/usr/bin/env bash
# Create the password file for the roles of the ACL: ./make-passwords.sh FILE
# Asks for each password (mosquitto_passwd stores only salted hashes).
set -euo pipefail
file="${1:-/etc/mosquitto/dealtable.passwd}"
touch "$file"
chmod 600 "$file"
for user in table-faro-1 dealer terminal display; do
    echo "password for $user:"
    mosquitto_passwd "$file" "$user"
done
