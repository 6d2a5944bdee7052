package io.jetstream.kafka.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Keeps core lean: Netty only in the protocol layer (zero-copy framing), no Kafka Connect anywhere
 * (the connectors depend on core, never the reverse), no connector support code (config keys, task
 * metrics: connect-common), and no cycles between core's packages.
 */
@AnalyzeClasses(packages = "io.jetstream.kafka.core", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule onlyTheProtocolLayerUsesNetty = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.core..")
            .and().resideOutsideOfPackage("io.jetstream.kafka.core.protocol..")
            .should().dependOnClassesThat().resideInAPackage("io.netty..")
            .because("the model, scheduler and batch codec must be testable and simulable without Netty");

    @ArchTest
    static final ArchRule nothingInCoreUsesKafkaConnect = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.core..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.connect..")
            .because("connect-source and connect-sink depend on core, never the reverse");

    @ArchTest
    static final ArchRule coreKnowsNoModuleAboveIt = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.core..")
            .should().dependOnClassesThat().resideInAnyPackage("io.jetstream.kafka.connect..",
                    "io.jetstream.kafka.transport..", "io.jetstream.kafka.source..", "io.jetstream.kafka.sink..",
                    "io.jetstream.kafka.relay..")
            .because("core is the model and the protocol: every other module depends on it, never the reverse");

    @ArchTest
    static final ArchRule coreHoldsNoConnectorConfigOrMetrics = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.core..")
            .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka.common.config..",
                    "org.apache.kafka.common.metrics..")
            .because("config keys and task metrics serve the connectors only: they live in connect-common");

    @ArchTest
    static final ArchRule batchAndWireDoNotKnowTheFrameLayer = noClasses()
            .that().resideInAnyPackage("io.jetstream.kafka.core.batch..", "io.jetstream.kafka.core.wire..")
            .should().dependOnClassesThat().resideInAPackage("io.jetstream.kafka.core.protocol..")
            .because("frames carry batches, not the other way round");

    @ArchTest
    static final ArchRule macsAreComparedInConstantTime = classes()
            .that().haveFullyQualifiedName("io.jetstream.kafka.core.protocol.FrameMac")
            .should().callMethod(MessageDigest.class, "isEqual", byte[].class, byte[].class)
            .because("a comparison that stops at the first differing byte tells a forger how much of a MAC is right");

    @ArchTest
    static final ArchRule macsAreNeverComparedByteByByte = noClasses()
            .that().resideInAPackage("io.jetstream.kafka.core.protocol..")
            .should().callMethod(Arrays.class, "equals", byte[].class, byte[].class)
            .orShould().callMethod(Arrays.class, "mismatch", byte[].class, byte[].class)
            .because("MACs are compared with MessageDigest.isEqual (FrameMac.matches), in constant time");

    @ArchTest
    static final ArchRule corePackagesAreFreeOfCycles = slices()
            .matching("io.jetstream.kafka.core.(*)..")
            .should().beFreeOfCycles();
}
