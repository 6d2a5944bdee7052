package io.jetstream.kafka.bench.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The bench measures JetStream as a user runs it: both connectors load in Connect workers from their
 * plugin folders and are driven through the REST API, relays run as processes, so the bench knows no
 * connector class. Its kernel WAN network ({@code wan}) stands alone under the bench: it is brought up
 * by hand too ({@code WanNetworkMain}) and knows nothing of plans, replicators or reports.
 */
@AnalyzeClasses(packages = "io.jetstream.kafka.bench", importOptions = ImportOption.DoNotIncludeTests.class)
class BenchArchitectureTest {

    @ArchTest
    static final ArchRule knowsNoConnectorCode = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.bench..")
            .should().dependOnClassesThat().resideInAnyPackage("io.jetstream.kafka.source..",
                    "io.jetstream.kafka.sink..", "io.jetstream.kafka.connect..", "org.apache.kafka.connect..")
            .because("the connectors run in Connect workers from their plugin folders, as a user's do");

    @ArchTest
    static final ArchRule theWanNetworkStandsAlone = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.bench.wan..")
            .should().dependOnClassesThat().resideInAPackage("io.jetstream.kafka.bench")
            .because("the kernel WAN is brought up by hand as well (WanNetworkMain), without a plan or a report");
}
