package io.jetstream.kafka.core.model;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The model and the scheduler are plain Java: no Netty, Kafka or Connect types, and no other core
 * package, so they compile, test and simulate alone. The model does not know the scheduler.
 */
class ModelDependenciesTest {

    private final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.jetstream.kafka.core.model", "io.jetstream.kafka.core.routing");

    @Test
    void modelAndRoutingDependOnTheJdkAndEachOtherOnly() {
        classes().that().resideInAnyPackage("io.jetstream.kafka.core.model..", "io.jetstream.kafka.core.routing..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..",
                        "io.jetstream.kafka.core.model..", "io.jetstream.kafka.core.routing..")
                .check(classes);
    }

    @Test
    void modelDoesNotDependOnRouting() {
        noClasses().that().resideInAPackage("io.jetstream.kafka.core.model..")
                .should().dependOnClassesThat().resideInAPackage("io.jetstream.kafka.core.routing..")
                .check(classes);
    }
}
