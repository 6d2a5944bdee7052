package io.jetstream.kafka.sink;

/** The connector version: the jar's Implementation-Version, or "dev" when run from classes. */
final class Version {

    private Version() {
    }

    static String get() {
        String version = Version.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
