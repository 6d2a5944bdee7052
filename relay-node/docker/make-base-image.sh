#!/usr/bin/env bash
# Makes a small Java runtime image for the relay without pulling anything: a jlink JRE from the
# local JDK, bash, head and grep (the image's health check), the shared libraries they load, and a
# passwd entry for the relay's user 10001, imported with `docker import`. Use it where Docker Hub
# (eclipse-temurin) cannot be reached:
#
#   relay-node/docker/make-base-image.sh [TAG]          # default TAG: jetstream-jre:17
#   docker build --build-arg BASE_IMAGE=jetstream-jre:17 -t jetstream/relay relay-node
#
# Needs: a JDK 17+ (jlink; JAVA_HOME or the java on the PATH), ldd, tar and a Docker engine (the
# docker CLI honours DOCKER_HOST). Linux only: the libraries are the host's, so the image runs on
# hosts of the same architecture. RelayContainerIT builds its relay image this way.
set -euo pipefail

tag="${1:-jetstream-jre:17}"
# What the relay's fat jar needs (jdeps --ignore-missing-deps --print-module-deps --multi-release 17
# on it) plus what jdeps cannot see:
# jdk.crypto.ec, the provider of TLS with EC keys and certificates.
modules="${JETSTREAM_JRE_MODULES:-java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.unsupported}"

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/jlink" ]; then
  jlink="$JAVA_HOME/bin/jlink"
elif command -v jlink >/dev/null 2>&1; then
  jlink="$(command -v jlink)"
else
  echo "make-base-image: no jlink (set JAVA_HOME to a JDK 17 or later)" >&2
  exit 2
fi
for tool in docker ldd tar bash head grep; do
  command -v "$tool" >/dev/null 2>&1 || { echo "make-base-image: $tool is not installed" >&2; exit 2; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/jetstream-jre.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root/etc" "$root/bin" "$root/opt/java" "$root/tmp" "$root/opt/jetstream"
chmod 1777 "$root/tmp"

"$jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$root/opt/java/openjdk"

for tool in bash head grep; do
  cp -L "$(command -v "$tool")" "$root/bin/$tool"
done
ln -s bash "$root/bin/sh"

# Every shared library the JRE and the tools load, at the path the dynamic loader looks for it.
# (glibc 2.34+ has its files and dns name services inside libc itself.)
# ldd fails on files that are not dynamic executables (scripts, data): not an error here.
{ find "$root" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -print0 | xargs -0 ldd 2>/dev/null || true; } |
  grep -oE '(/[^ ]+\.so[^ ]*)' |
  sort -u |
  while read -r lib; do
    case "$lib" in "$root"*) continue ;; esac
    if [ -e "$lib" ]; then cp -L --parents "$lib" "$root"; fi
  done

cat > "$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
jetstream:x:10001:10001:JetStream relay:/opt/jetstream:/bin/sh
PASSWD
cat > "$root/etc/group" <<'GROUP'
root:x:0:
jetstream:x:10001:
GROUP
printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"

tar -C "$root" -c . | docker import \
  --change 'ENV JAVA_HOME=/opt/java/openjdk' \
  --change 'ENV PATH=/opt/java/openjdk/bin:/usr/local/bin:/usr/bin:/bin' \
  --change 'CMD ["java", "-version"]' \
  - "$tag" >/dev/null
echo "make-base-image: built $tag ($(du -sh "$root" | cut -f1) unpacked) from $("$jlink" --version 2>/dev/null | head -n 1 || true)"
