package io.jetstream.kafka.connect.common.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The shared module sits between transport and the two connectors: it may use core and transport,
 * never one connector's own code (each connector depends on it, not the reverse), and it stays free
 * of the Connect API so that its pieces are tested without a worker; the one exception is the REST
 * extension ({@code rest}), which a worker loads from the plugins and which reads the task views
 * only through JMX.
 */
@AnalyzeClasses(packages = "io.jetstream.kafka.connect.common", importOptions = ImportOption.DoNotIncludeTests.class)
class ConnectCommonArchitectureTest {

    @ArchTest
    static final ArchRule knowsNeitherConnector = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.connect.common..")
            .should().dependOnClassesThat().resideInAnyPackage("io.jetstream.kafka.source..", "io.jetstream.kafka.sink..")
            .because("connect-source and connect-sink depend on connect-common, never the reverse");

    @ArchTest
    static final ArchRule knowsNeitherTheRelayNorTheLauncher = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.connect.common..")
            .should().dependOnClassesThat().resideInAnyPackage("io.jetstream.kafka.relay..",
                    "io.jetstream.kafka.launcher..", "io.jetstream.kafka.testkit..", "io.jetstream.kafka.bench..")
            .because("the relay is a process of its own and the launcher, testkit and bench use the connectors, not the reverse");

    @ArchTest
    static final ArchRule usesNoConnectApi = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.connect.common..")
            .and().resideOutsideOfPackage("io.jetstream.kafka.connect.common.rest..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.connect..")
            .because("config keys, task metrics and relay clients are plain Kafka client code, unit-tested without a worker");
}
