#!/usr/bin/env bash
# Makes the KafkaConnect and KafkaConnector CRDs of each Strimzi release named below, as that
# release's own build makes them: Strimzi's CrdGenerator (io.strimzi:crd-generator) run over the
# model classes of io.strimzi:api at that version, both from Maven Central, with the arguments of
# the api module's `generate-crd-co-install-v1` execution in that version's pom. These are the
# files Strimzi ships as packaging/install/cluster-operator/041-Crd-kafkaconnect.yaml and
# 047-Crd-kafkaconnector.yaml. KubernetesSchemaTest validates config/kubernetes/strimzi/ against
# every served version of them.
#
#   system-tests/src/test/resources/kubernetes-schemas/strimzi/generate.sh [VERSION...]
#
# Needs Maven and a Java 21 or later (Strimzi's api classes from 1.0 on are Java 21 bytecode):
# JAVA21_HOME, else /usr/lib/jvm/temurin-25-jdk-amd64. After adding a version, add it to
# KubernetesSchemaTest.STRIMZI_VERSIONS and to the supported range in the manifests and docs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
java_home="${JAVA21_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(0.49.0 0.50.1 0.51.0 1.2.0)
# Strimzi publishes its CrdGenerator on Maven Central only for some releases (0.45.0, then 1.2.0):
# the releases in between are generated with the newest one, which reads their annotations.
generator="${STRIMZI_CRD_GENERATOR:-1.2.0}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for v in "${versions[@]}"; do
  mkdir -p "$work/$v"
  cat > "$work/$v/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>strimzi-crds</artifactId><version>$v</version>
  <dependencies>
    <dependency><groupId>io.strimzi</groupId><artifactId>api</artifactId><version>$v</version></dependency>
    <dependency><groupId>io.strimzi</groupId><artifactId>crd-generator</artifactId><version>$generator</version></dependency>
  </dependencies>
</project>
POM
  (cd "$work/$v" && mvn -B -q -ntp dependency:build-classpath -Dmdep.outputFile=classpath.txt \
      -Dmdep.includeScope=runtime >"$work/$v/mvn.log") || { cat "$work/$v/mvn.log"; exit 1; }
  pom="$HOME/.m2/repository/io/strimzi/api/$v/api-$v.pom"
  # The generator's flags as that release passes them (labels, served versions, storage version),
  # up to --yaml; the class=file pairs that follow are ours.
  mapfile -t flags < <(sed -n '/<id>generate-crd-co-install-v1<\/id>/,/<\/arguments>/p' "$pom" \
      | grep -o '<argument>[^<]*</argument>' | sed 's/<[^>]*>//g' \
      | sed -n '/^io.strimzi.crdgenerator.CrdGenerator$/,/^--yaml$/p' | sed '1d')
  out="$here/$v"
  mkdir -p "$out"
  "$java_home/bin/java" -cp "$(cat "$work/$v/classpath.txt")" io.strimzi.crdgenerator.CrdGenerator \
      "${flags[@]}" \
      "io.strimzi.api.kafka.model.connect.KafkaConnect=$out/041-Crd-kafkaconnect.yaml" \
      "io.strimzi.api.kafka.model.connector.KafkaConnector=$out/047-Crd-kafkaconnector.yaml"
  echo "Strimzi $v: $(grep -c '^  - name: v' "$out/041-Crd-kafkaconnect.yaml" || true) versions of KafkaConnect, flags: ${flags[*]}"
done
