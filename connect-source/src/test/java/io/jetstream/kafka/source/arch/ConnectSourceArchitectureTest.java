package io.jetstream.kafka.source.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The source-site connector in two layers: the Connect-facing task and its checks
 * ({@code io.jetstream.kafka.source}) on top of the engine ({@code io.jetstream.kafka.source.sender}),
 * which knows neither the task nor the Connect API, so that it is unit-tested without a worker and
 * reads as the steps a batch takes.
 */
@AnalyzeClasses(packages = "io.jetstream.kafka.source", importOptions = ImportOption.DoNotIncludeTests.class)
class ConnectSourceArchitectureTest {

    @ArchTest
    static final ArchRule theEngineKnowsNotTheTask = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.source.sender..")
            .should().dependOnClassesThat().resideInAPackage("io.jetstream.kafka.source")
            .because("the task wires the engine and reads its gauges; the engine tells SenderEvents and its "
                    + "relays' Inbound, never the task's classes");

    @ArchTest
    static final ArchRule theEngineUsesNoConnectApi = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.source.sender..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.connect..")
            .because("the engine is free of Kafka Connect types, unit-tested with fake relays");

    @ArchTest
    static final ArchRule packagesFreeOfCycles = slices().matching("io.jetstream.kafka.source.(**)")
            .should().beFreeOfCycles();
}
