#!/usr/bin/env bash
# Fetch official Nomad builds (linux/amd64) for the CI templates, verified: the SHA256SUMS file's OpenPGP
# signature must be made by HashiCorp's release key (fingerprint pinned below), and the zip must match its line.
#   fetch-nomad.sh <dest dir> <version>...      e.g. fetch-nomad.sh examples/ci/builds 1.9.3 1.9.7
# writes <dest>/nomad-<version>; a build already there is kept. Overrides (tests, mirrors):
#   NOMAD_RELEASES_URL  (default https://releases.hashicorp.com)
#   HASHICORP_KEY_URL   (default https://www.hashicorp.com/.well-known/pgp-key.txt)
#   HASHICORP_KEY_FPR   (default C874011F0AB405110D02105534365D9472D7468F, HashiCorp's security page)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: fetch-nomad.sh <dest dir> <version>..." >&2; exit 2; }
DEST=$1; shift
BASE=${NOMAD_RELEASES_URL:-https://releases.hashicorp.com}
KEY_URL=${HASHICORP_KEY_URL:-https://www.hashicorp.com/.well-known/pgp-key.txt}
FPR=${HASHICORP_KEY_FPR:-C874011F0AB405110D02105534365D9472D7468F}
for v in "$@"; do
  if ! [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?(\+ent)?$ ]]; then
    echo "fetch-nomad.sh: not a version: $v" >&2; exit 2
  fi
done
mkdir -p "$DEST"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
export GNUPGHOME="$WORK/gnupg"; mkdir -m 700 "$GNUPGHOME"
curl -fsSL --retry 3 "$KEY_URL" -o "$WORK/key.asc"
gpg --batch --quiet --import "$WORK/key.asc"
# Only the pinned key may sign: export exactly it into the keyring gpgv trusts.
gpg --batch --export "$FPR" > "$WORK/trusted.gpg"
[ -s "$WORK/trusted.gpg" ] || { echo "fetch-nomad.sh: $KEY_URL holds no key with fingerprint $FPR" >&2; exit 1; }
for v in "$@"; do
  out="$DEST/nomad-$v"
  if [ -x "$out" ]; then echo "nomad $v: $out already there"; continue; fi
  zip="nomad_${v}_linux_amd64.zip"
  for f in "$zip" "nomad_${v}_SHA256SUMS" "nomad_${v}_SHA256SUMS.sig"; do
    curl -fsSL --retry 3 "$BASE/nomad/$v/$f" -o "$WORK/$f"
  done
  sums="$WORK/nomad_${v}_SHA256SUMS"
  if ! gpgv --keyring "$WORK/trusted.gpg" "$sums.sig" "$sums" 2>"$WORK/gpgv.log"; then
    echo "fetch-nomad.sh: nomad $v: SHA256SUMS is not signed by $FPR" >&2; cat "$WORK/gpgv.log" >&2; exit 1
  fi
  want=$(awk -v f="$zip" '$2 == f { print $1 }' "$sums")
  got=$(sha256sum "$WORK/$zip" | cut -d' ' -f1)
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "fetch-nomad.sh: nomad $v: $zip sha256 $got, SHA256SUMS says '${want}'" >&2; exit 1
  fi
  unzip -p "$WORK/$zip" nomad > "$out.part"
  chmod 0755 "$out.part" && mv "$out.part" "$out"
  echo "nomad $v: $out (zip sha256 $got, signature by $FPR)"
done
