package io.jetstream.kafka.relay;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Keeps the relay's layers apart: configuration and metrics know nothing of Netty or of the
 * server, so they stay usable (and testable) alone, e.g. by the launcher or a future control plane;
 * route choice knows nothing of connections.
 */
class RelayArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.jetstream.kafka.relay");

    @Test
    void configurationAndMetricsDoNotDependOnNettyOrTheServer() {
        noClasses().that().resideInAnyPackage("..relay.config..", "..relay.metrics..")
                .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "..relay.server..", "..relay.admin..")
                .check(MAIN);
    }

    @Test
    void routeChoiceKnowsNothingOfConnections() {
        noClasses().that().resideInAPackage("..relay.routing..")
                .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "..relay.datapath..",
                        "..relay.server..", "..relay.admin..")
                .check(MAIN);
    }

    @Test
    void nothingDependsOnTheCommandLine() {
        noClasses().that().resideOutsideOfPackage("io.jetstream.kafka.relay")
                .should().dependOnClassesThat().haveFullyQualifiedName(RelayMain.class.getName())
                .check(MAIN);
    }
}
