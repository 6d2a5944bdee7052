package io.jetstream.kafka.sink.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * Keeps connect-sink's packages a layering: the connector and the task at the top
 * ({@code io.jetstream.kafka.sink}) wire the parts below them (receiver, topics, naming, schemas,
 * exactly-once, at-least-once, progress, offset map, checkpoints, config, metrics), no part reaches
 * back up, and no two packages import each other, directly or round a cycle.
 */
@AnalyzeClasses(packages = "io.jetstream.kafka.sink", importOptions = ImportOption.DoNotIncludeTests.class)
class SinkArchitectureTest {

    private static final String TOP = "io.jetstream.kafka.sink";

    /** One slice per package directly under the top, and the top package itself as a slice of its own. */
    private static final SliceAssignment SINK_PACKAGES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass type) {
            String name = type.getPackageName();
            if (name.equals(TOP)) {
                return SliceIdentifier.of("(top)");
            }
            if (name.startsWith(TOP + ".")) {
                return SliceIdentifier.of(name.substring(TOP.length() + 1).split("\\.")[0]);
            }
            return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "the packages of connect-sink, its top package included";
        }
    };

    @ArchTest
    static final ArchRule sinkPackagesAreFreeOfCycles = slices().assignedFrom(SINK_PACKAGES)
            .should().beFreeOfCycles();

    @ArchTest
    static final ArchRule nothingBelowTheTopKnowsTheConnectorOrTheTask = noClasses()
            .that().resideInAPackage(TOP + ".*..")
            .should().dependOnClassesThat().resideInAPackage(TOP)
            .because("the connector and the task wire the parts; a part that reached back would close a cycle");

    @ArchTest
    static final ArchRule theReceiverIsFreeOfKafkaConnect = noClasses()
            .that().resideInAPackage(TOP + ".receiver..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.connect..")
            .because("the receiver is the task's Connect-free engine, tested without a worker");
}
