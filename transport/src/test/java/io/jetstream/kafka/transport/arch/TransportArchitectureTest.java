package io.jetstream.kafka.transport.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Transport (frame handlers and the peer client) serves the relay and the connectors alike, so it
 * knows neither: no connector code, no Connect, and no configuration keys (its users build
 * {@code PeerClientConfig} from their own settings; connect-common does it for the connectors).
 * Maven enforces the same by transport's dependencies; this names the reason when someone adds one.
 */
@AnalyzeClasses(packages = "io.jetstream.kafka.transport", importOptions = ImportOption.DoNotIncludeTests.class)
class TransportArchitectureTest {

    @ArchTest
    static final ArchRule knowsNoConnectorCode = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.transport..")
            .should().dependOnClassesThat().resideInAnyPackage("io.jetstream.kafka.connect..",
                    "io.jetstream.kafka.source..", "io.jetstream.kafka.sink..", "io.jetstream.kafka.relay..",
                    "org.apache.kafka.connect..")
            .because("the relay and both connectors depend on transport, never the reverse");

    @ArchTest
    static final ArchRule knowsNoConfigKeys = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.transport..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.common.config..")
            .because("connector settings become a PeerClientConfig in connect-common (RelayClients), not here");
}
