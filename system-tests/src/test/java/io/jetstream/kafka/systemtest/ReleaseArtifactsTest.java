package io.jetstream.kafka.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a release ships and what the deployment files name, checked on the packaged artifacts
 * (the reactor packages the connectors and the relay before this module's tests run): the Apache
 * License 2.0 and the NOTICE in the repository, in each plugin zip, in the relay's jar and in what
 * its image copies; THIRD-PARTY.txt naming every bundled library with a licence; the Confluent Hub
 * manifest's licence, Connect range (the README's) and archive name {@code <owner>-<name>-<version>};
 * and {@code config/kubernetes/} and {@code docker-compose.yml} naming the release of the pom's
 * version ({@code <revision>} without -SNAPSHOT), which {@code mvn -Drevision=<that> package} builds.
 */
class ReleaseArtifactsTest {

    private static final Path ROOT = SiteFiles.projectRoot();
    /** SHA-256 of the Apache License 2.0 as the ASF publishes it (LICENSE-2.0.txt). */
    private static final String APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";
    private static final String APACHE_2_URL = "https://www.apache.org/licenses/LICENSE-2.0";
    private static final String HUB_OWNER = "jetstream";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** A THIRD-PARTY.txt line: {@code (licence) [(licence) ...] Name (group:artifact:version - url)}. */
    private static final Pattern THIRD_PARTY_LINE =
            Pattern.compile("^\\s+\\(([^)]+)\\).*\\(([\\w.\\-]+):([\\w.\\-]+):([\\w.\\-]+) - [^)]*\\)\\s*$");
    /**
     * Libraries that come inside another bundled jar, not as a dependency of their own: Netty
     * relocates JCTools into netty-common (Netty's LICENSE and NOTICE name it).
     */
    private static final Map<String, String> EMBEDDED = Map.of("jctools-core", "netty-common",
            "jctools-core-jdk11", "netty-common");
    private static final Pattern README_CONNECT_RANGE =
            Pattern.compile("Kafka Connect workers of Kafka \\*\\*(\\d+\\.\\d+ to \\d+\\.\\d+)\\*\\*");

    @Test
    void theRepositoryIsLicensedUnderTheApacheLicense2() throws IOException {
        assertThat(sha256(Files.readAllBytes(ROOT.resolve("LICENSE")))).as("LICENSE is the plain Apache-2.0 text")
                .isEqualTo(APACHE_2_SHA256);
        assertThat(Files.readString(ROOT.resolve("NOTICE"))).startsWith("JetStream for Kafka\nCopyright ")
                .contains("Apache License, Version 2.0");
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        assertThat(pom).as("the root pom's licences").containsPattern(
                "(?s)<licenses>\\s*<license>\\s*<name>Apache-2\\.0</name>\\s*<url>https://www\\.apache\\.org/licenses/LICENSE-2\\.0(\\.txt)?</url>");
        assertThat(Files.readString(ROOT.resolve("README.md"))).as("the README's licence line")
                .containsPattern("(?m)^## Licen[cs]e\\s+Apache License 2\\.0");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"connect-source", "connect-sink"})
    void eachPluginZipShipsTheLicenceTheNoticeAndTheLicencesOfWhatItBundles(String module) throws IOException {
        Path zip = pluginZip(module);
        String doc = baseName(zip) + "/doc/";
        try (ZipFile file = new ZipFile(zip.toFile())) {
            assertThat(bytes(file, doc + "LICENSE")).as(zip + ": doc/LICENSE").isEqualTo(Files.readAllBytes(ROOT.resolve("LICENSE")));
            assertThat(bytes(file, doc + "NOTICE")).as(zip + ": doc/NOTICE").isEqualTo(Files.readAllBytes(ROOT.resolve("NOTICE")));

            Map<String, String> listed = thirdParty(new String(bytes(file, doc + "THIRD-PARTY.txt"), StandardCharsets.UTF_8));
            String lib = baseName(zip) + "/lib/";
            List<String> bundled = new ArrayList<>();
            file.stream().map(ZipEntry::getName).filter(n -> n.startsWith(lib) && n.endsWith(".jar"))
                    .map(n -> n.substring(lib.length())).filter(jar -> !jar.startsWith("jetstream-")).forEach(bundled::add);
            assertThat(bundled).as(zip + ": third-party jars").isNotEmpty();
            for (String jar : bundled) {
                assertThat(listed.keySet()).as(zip + ": THIRD-PARTY.txt lists " + jar)
                        .anyMatch(artifactVersion -> jar.equals(artifactVersion + ".jar") || jar.startsWith(artifactVersion + "-"));
            }
            for (String artifactVersion : listed.keySet()) {
                assertThat(bundled).as(zip + ": lib/ bundles " + artifactVersion + ", as THIRD-PARTY.txt says")
                        .anyMatch(jar -> jar.equals(artifactVersion + ".jar") || jar.startsWith(artifactVersion + "-"));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"connect-source", "connect-sink"})
    void theHubManifestNamesTheLicenceTheReadmesConnectRangeAndTheArchive(String module) throws IOException {
        Path zip = pluginZip(module);
        JsonNode manifest;
        try (ZipFile file = new ZipFile(zip.toFile())) {
            manifest = JSON.readTree(bytes(file, baseName(zip) + "/manifest.json"));
        }
        JsonNode license = manifest.path("license");
        assertThat(license.isArray() && license.size() == 1).as("one licence: " + license).isTrue();
        assertThat(license.get(0).path("name").asText()).isEqualTo("Apache License 2.0");
        assertThat(license.get(0).path("url").asText()).isEqualTo(APACHE_2_URL);

        String archive = manifest.path("owner").path("username").asText() + "-" + manifest.path("name").asText()
                + "-" + manifest.path("version").asText();
        assertThat(manifest.path("owner").path("username").asText()).isEqualTo(HUB_OWNER);
        assertThat(zip.getFileName().toString()).as("<owner>-<name>-<version>.zip").isEqualTo(archive + ".zip");
        assertThat(baseName(zip)).as("the zip's folder").isEqualTo(archive);

        Matcher range = README_CONNECT_RANGE.matcher(Files.readString(ROOT.resolve("README.md")));
        assertThat(range.find()).as("README states the Connect range").isTrue();
        List<String> requirements = new ArrayList<>();
        manifest.path("requirements").forEach(r -> requirements.add(r.asText()));
        assertThat(requirements).as("requirements").anyMatch(r -> r.contains("Kafka Connect worker of Apache Kafka "
                + range.group(1) + " "));
        assertThat(String.join(" ", requirements)).doesNotContainPattern("Connect \\d\\.x");
    }

    @Test
    void theRelayJarCarriesTheLicenceTheNoticesAndTheLicencesOfWhatItBundles() throws IOException {
        Path jar = relayJar();
        try (ZipFile file = new ZipFile(jar.toFile())) {
            assertThat(bytes(file, "META-INF/LICENSE")).as(jar + ": META-INF/LICENSE")
                    .isEqualTo(Files.readAllBytes(ROOT.resolve("LICENSE")));
            String notice = new String(bytes(file, "META-INF/NOTICE"), StandardCharsets.UTF_8);
            String ours = Files.readString(ROOT.resolve("NOTICE"));
            assertThat(notice).as(jar + ": the project's NOTICE first, once").startsWith(ours);
            assertThat(notice.indexOf(ours, 1)).as(jar + ": the project's NOTICE once").isEqualTo(-1);
            assertThat(notice.length()).as(jar + ": the bundled libraries' notices follow").isGreaterThan(ours.length() + 100);

            Map<String, String> listed = thirdParty(new String(bytes(file, "THIRD-PARTY.txt"), StandardCharsets.UTF_8));
            // Each bundled library built with Maven left its coordinates in META-INF/maven/.
            Pattern pomProperties = Pattern.compile("META-INF/maven/([^/]+)/([^/]+)/pom\\.properties");
            int checked = 0;
            for (ZipEntry entry : Collections.list(file.entries())) {
                Matcher m = pomProperties.matcher(entry.getName());
                if (!m.matches() || m.group(1).equals("io.jetstream.kafka")) {
                    continue;
                }
                java.util.Properties props = new java.util.Properties();
                props.load(file.getInputStream(entry));
                String artifact = props.getProperty("artifactId");
                boolean embedded = EMBEDDED.containsKey(artifact);
                String expected = embedded ? EMBEDDED.get(artifact) + "-" : artifact + "-" + props.getProperty("version");
                assertThat(listed.keySet()).as(jar + ": THIRD-PARTY.txt lists " + m.group(1) + ":" + artifact
                        + (embedded ? " (inside " + expected + "*)" : "")).anyMatch(k -> embedded ? k.startsWith(expected)
                        : k.equals(expected));
                checked++;
            }
            assertThat(checked).as(jar + ": bundled libraries found").isGreaterThan(10);
            assertThat(listed.keySet()).anyMatch(k -> k.startsWith("netty-handler-")).anyMatch(k -> k.startsWith("kafka-clients-"))
                    .noneMatch(k -> k.startsWith("jetstream-"));
        }
    }

    @Test
    void theImageCopiesTheLicenceFilesTheBuildPutsNextToTheJar() throws IOException {
        Path module = ROOT.resolve("relay-node");
        String dockerfile = Files.readString(module.resolve("Dockerfile"));
        assertThat(dockerfile).contains("COPY --chown=0:0 target/licenses/ /opt/jetstream/")
                .contains("org.opencontainers.image.licenses=\"Apache-2.0\"");
        assertThat(Files.readAllLines(module.resolve(".dockerignore"))).as("the build context lets the licences in")
                .contains("*", "!target/licenses");
        Path licenses = module.resolve("target").resolve("licenses");
        assertThat(Files.readAllBytes(licenses.resolve("LICENSE"))).isEqualTo(Files.readAllBytes(ROOT.resolve("LICENSE")));
        try (ZipFile jar = new ZipFile(relayJar().toFile())) {
            assertThat(Files.readAllBytes(licenses.resolve("NOTICE"))).as("the jar's merged NOTICE")
                    .isEqualTo(bytes(jar, "META-INF/NOTICE"));
            assertThat(Files.readAllBytes(licenses.resolve("THIRD-PARTY.txt"))).isEqualTo(bytes(jar, "THIRD-PARTY.txt"));
        }
    }

    @Test
    void theKubernetesManifestsNameTheReleaseVersion() throws IOException {
        String release = releaseVersion();
        Pattern image = Pattern.compile("(?:[a-z0-9.\\-]+(?::\\d+)?/)*jetstream/([a-z0-9-]+):([\\w.\\-]+)");
        Pattern zip = Pattern.compile(".*/(jetstream-connect-(?:source|sink))-(.+)\\.zip");
        Map<String, String> named = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT.resolve("config").resolve("kubernetes"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (JsonNode doc : documents(file)) {
                    for (String value : strings(doc, new ArrayList<>())) {
                        Matcher m = image.matcher(value);
                        Matcher z = zip.matcher(value);
                        if (m.matches()) {
                            named.put(ROOT.relativize(file) + " " + value, m.group(2));
                        } else if (z.matches()) {
                            named.put(ROOT.relativize(file) + " " + value, z.group(2));
                        }
                    }
                }
            }
        }
        assertThat(named.keySet()).as("images and plugin zips named").anyMatch(k -> k.contains("jetstream/relay:"))
                .anyMatch(k -> k.contains("jetstream-connect-source-")).anyMatch(k -> k.contains("jetstream-connect-sink-"));
        assertThat(named).as("versions in config/kubernetes").allSatisfy((where, version) ->
                assertThat(version).as(where).isEqualTo(release));
    }

    @Test
    void composeNamesTheReleaseVersion() throws IOException {
        String release = releaseVersion();
        List<String> lines = Files.readAllLines(ROOT.resolve("docker-compose.yml")).stream()
                .filter(line -> !line.strip().startsWith("#")).toList();
        Pattern variable = Pattern.compile("\\$\\{JETSTREAM_VERSION:-([^}]*)}");
        List<String> defaults = new ArrayList<>();
        for (String line : lines) {
            Matcher m = variable.matcher(line);
            while (m.find()) {
                defaults.add(m.group(1));
            }
        }
        assertThat(defaults).as("the relay image and both plugin folders").hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(version -> assertThat(version).isEqualTo(release));
        assertThat(lines).anyMatch(line -> line.strip().equals("image: jetstream/relay:${JETSTREAM_VERSION:-" + release + "}"));
        for (String module : List.of("connect-source", "connect-sink")) {
            assertThat(lines).anyMatch(line -> line.contains("./" + module + "/target/jetstream-" + module
                    + "-${JETSTREAM_VERSION:-" + release + "}:"));
        }
    }

    /** The version a release of this tree has: the pom's {@code revision} without -SNAPSHOT. */
    static String releaseVersion() throws IOException {
        Matcher m = Pattern.compile("<revision>([^<]+)</revision>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(m.find()).as("the root pom's revision").isTrue();
        return m.group(1).replaceFirst("-SNAPSHOT$", "");
    }

    /** The newest plugin zip a build left in the module's target folder. */
    static Path pluginZip(String module) throws IOException {
        return newest(ROOT.resolve(module).resolve("target"), "jetstream-" + module + "-*.zip");
    }

    /** A zip's file name without {@code .zip}: the Hub names its folder so. */
    static String baseName(Path zip) {
        return zip.getFileName().toString().replaceFirst("\\.zip$", "");
    }

    private static Path relayJar() throws IOException {
        return newest(ROOT.resolve("relay-node").resolve("target"), "jetstream-relay-node-*-all.jar");
    }

    private static Path newest(Path dir, String glob) throws IOException {
        Path newest = null;
        try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, glob)) {
            for (Path path : found) {
                if (newest == null || Files.getLastModifiedTime(path).compareTo(Files.getLastModifiedTime(newest)) > 0) {
                    newest = path;
                }
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // reported below
        }
        if (newest == null) {
            throw new IOException("nothing matches " + glob + " in " + dir + ": run 'mvn -DskipTests package' first");
        }
        return newest;
    }

    /** THIRD-PARTY.txt as {@code artifactId-version -> licence}; every entry must name a licence. */
    private static Map<String, String> thirdParty(String text) {
        Map<String, String> listed = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith(" ")) {
                continue;
            }
            Matcher m = THIRD_PARTY_LINE.matcher(line);
            assertThat(m.matches()).as("THIRD-PARTY.txt line: " + line).isTrue();
            assertThat(m.group(1)).as(line).isNotBlank().doesNotContainIgnoringCase("unknown");
            listed.put(m.group(3) + "-" + m.group(4), m.group(1));
        }
        assertThat(listed).as("THIRD-PARTY.txt entries").isNotEmpty();
        return listed;
    }

    private static byte[] bytes(ZipFile file, String name) throws IOException {
        ZipEntry entry = file.getEntry(name);
        assertThat(entry).as(file.getName() + ": " + name).isNotNull();
        return file.getInputStream(entry).readAllBytes();
    }

    private static List<JsonNode> documents(Path file) throws IOException {
        try (JsonParser parser = YAML.getFactory().createParser(file.toFile());
             MappingIterator<JsonNode> docs = YAML.readValues(parser, JsonNode.class)) {
            return docs.readAll().stream().filter(doc -> doc != null && !doc.isNull() && !doc.isMissingNode()).toList();
        }
    }

    private static List<String> strings(JsonNode node, List<String> into) {
        if (node.isTextual()) {
            into.add(node.asText());
        }
        node.forEach(child -> strings(child, into));
        return into;
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
