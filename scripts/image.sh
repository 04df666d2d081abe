#!/usr/bin/env bash
# Builds the container image of .ko.yaml for this machine's CPU into a
# tarball, with no Docker daemon and no network (make snapshot):
#
#   scripts/image.sh KO CRANE VERSION OUT.tar
#
# ko's base image (cgr.dev/chainguard/static, which the release uses)
# cannot be pulled here, so a stand-in of it, an empty image holding this
# machine's CA certificates, is served by crane's registry on 127.0.0.1.
set -euo pipefail
ko="$1" crane="$2" version="$3" out="$4"
tmp="$(mktemp -d)"
"$crane" registry serve --address 127.0.0.1:0 2>"$tmp/registry.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
port=""
for _ in $(seq 100); do
	port="$(sed -n 's/.*serving on port \([0-9][0-9]*\).*/\1/p' "$tmp/registry.log")"
	[[ -n "$port" ]] && break
	sleep 0.1
done
[[ -n "$port" ]] || { cat "$tmp/registry.log" >&2 && exit 1; }
arch="$(go env GOARCH)" base="127.0.0.1:$port/static"
mkdir -p "$tmp/root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$tmp/root/etc/ssl/certs/"
tar -C "$tmp/root" -cf "$tmp/certs.tar" etc
"$crane" append --new_layer "$tmp/certs.tar" --new_tag "$base:layer" >/dev/null
"$crane" mutate --set-platform "linux/$arch" --tag "$base:latest" "$base:layer" >/dev/null
VERSION="$version" KO_DOCKER_REPO=ghcr.io/ctxbench/ctxbench KO_DEFAULTBASEIMAGE="$base" \
	"$ko" build --bare --push=false --tarball "$out" --platform "linux/$arch" --sbom none ./cmd/ctxbench
