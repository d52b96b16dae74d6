#!/usr/bin/env bash
# Create the password file for the accounts of the ACL: ./make-passwords.sh FILE [ACCOUNT...]
# The accounts are those `dealtable config acl` names as it writes the ACL; without them, the
# example's: table-faro-1 dealer terminal display. At a terminal it asks for each password;
# fed from a pipe or a file (an automated install) it reads them from standard input, one a
# line, in the order of the accounts:
#   printf '%s\n' "$TABLE" "$DEALER" "$TERMINAL" "$DISPLAY" | ./make-passwords.sh FILE
# mosquitto_passwd stores only salted hashes.
set -euo pipefail
file="${1:-/etc/mosquitto/dealtable.passwd}"
shift || true
users=("$@")
if [ ${#users[@]} -eq 0 ]; then
    users=(table-faro-1 dealer terminal display)
fi
# Mosquitto's password file ends a name at ':' and skips a line beginning with '#': such an
# account is refused before the file is touched, not after the ones before it were written.
for user in "${users[@]}"; do
    if [ -z "$user" ] || [[ "$user" == *:* ]] || [[ "$user" == "#"* ]]; then
        echo "make-passwords.sh: the account '$user' cannot be in a password file (no ':'," \
            "not beginning with '#', not empty); $file is left as it was" >&2
        exit 1
    fi
done
if [ -t 0 ]; then
    touch "$file"
    chmod 600 "$file"
    for user in "${users[@]}"; do
        echo "password for $user:"
        mosquitto_passwd "$file" "$user"
    done
    exit 0
fi
# Every password is read before the file is touched: input that runs short changes nothing.
passwords=()
for user in "${users[@]}"; do
    password=""
    IFS= read -r password || true  # the last line may lack its newline
    if [ -z "$password" ]; then
        echo "make-passwords.sh: no password for $user on line $((${#passwords[@]} + 1)) of" \
            "standard input: give one a line, for ${users[*]}; $file is left as it was" >&2
        exit 1
    fi
    passwords+=("$password")
done
touch "$file"
chmod 600 "$file"
for index in "${!users[@]}"; do
    # Through a pipe (printf is bash's own), never on a command line that ps shows; each
    # mosquitto_passwd takes two lines, the password and its repeat, and no more.
    printf '%s\n%s\n' "${passwords[$index]}" "${passwords[$index]}" |
        mosquitto_passwd "$file" "${users[$index]}" >/dev/null
done
echo "$file: passwords set for ${users[*]}"
