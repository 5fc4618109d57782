package io.sluice.tests.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The layering the code relies on, checked on the compiled main classes of every module this module sees (api,
 * buffers, netty, test support and tests; tests excluded): the leaves and the engine-facing packages stay free of
 * Netty, no two packages import each other (directly or around a loop), and the API package exports exactly the
 * types docs/contract.md documents. sluice-bench, which depends on this module, checks its own packages the same way
 * (its BenchArchitectureTest). Each rule is a method (not an ArchRule field) so that Surefire's test filter selects
 * it like any other test.
 */
@AnalyzeClasses(packages = "io.sluice",
        importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.DoNotIncludeTestJars.class})
class ArchitectureTest {

    /**
     * Leaves out the shuffle-netty test-jar. {@link ImportOption.DoNotIncludeTests} knows test classes only by their
     * {@code test-classes} directory, which is what a reactor build up to {@code test} puts on the class path; up to
     * {@code verify} the reactor hands out the packaged {@code -tests.jar} instead, whose fixtures and tests would
     * then count as main code.
     */
    static final class DoNotIncludeTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }

    /** shuffle-api and shuffle-buffers are leaves an engine can use without Netty on its class path. */
    @ArchTest
    static void apiAndBuffers_importNoNetty(JavaClasses classes) {
        noClasses()
                .that().resideInAnyPackage("io.sluice.api..", "io.sluice.buffers..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .because("shuffle-api and shuffle-buffers stay leaves without Netty").check(classes);
    }

    /** Producer and consumer logic talk to the transport through interfaces; only the transport touches Netty. */
    @ArchTest
    static void partitionAndGate_importNoNetty(JavaClasses classes) {
        noClasses()
                .that().resideInAnyPackage("io.sluice.netty.partition..", "io.sluice.netty.gate..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .because("partition and gate reach the transport through interfaces (gate.ProducerConnection, "
                        + "partition.ResultSubpartitionView); Netty stays in io.sluice.netty.transport").check(classes);
    }

    /** Every package is a slice: a cycle between any two, or around any loop, fails. */
    @ArchTest
    static void packages_areFreeOfCycles(JavaClasses classes) {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    /** The transport depends on the gate, never the other way: the gate defines the interfaces it is reached by. */
    @ArchTest
    static void gate_doesNotImportTransport(JavaClasses classes) {
        noClasses()
                .that().resideInAPackage("io.sluice.netty.gate..")
                .should().dependOnClassesThat().resideInAPackage("io.sluice.netty.transport..").check(classes);
    }

    private static final Pattern DOCUMENTED_TYPE = Pattern.compile(
            "^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|record|enum|@interface) (\\w+)",
            Pattern.MULTILINE);

    /**
     * The API package exports what docs/contract.md documents and nothing else: a public helper there becomes
     * something engines depend on. A new public type is either documented there or made package-private.
     */
    @ArchTest
    static void apiPackage_exportsExactlyTheDocumentedContract(JavaClasses classes) throws IOException {
        Set<String> exported = new TreeSet<>();
        for (JavaClass type : classes) {
            if (type.getPackageName().equals("io.sluice.api") && type.isTopLevelClass()
                    && type.getModifiers().contains(JavaModifier.PUBLIC)) {
                exported.add(type.getSimpleName());
            }
        }
        Set<String> documented = new TreeSet<>();
        Matcher matcher = DOCUMENTED_TYPE.matcher(Files.readString(contract(), StandardCharsets.UTF_8));
        while (matcher.find()) {
            documented.add(matcher.group(1));
        }
        assertFalse(exported.isEmpty(), "no class of io.sluice.api was imported");
        assertEquals(documented, exported, "public top-level types of io.sluice.api (right) against those "
                + "docs/contract.md documents (left): document a new type there, or make it package-private");
    }

    /** docs/contract.md, found from the module directory the tests run in (or the repository root). */
    private static Path contract() {
        Path fromModule = Path.of("..", "docs", "contract.md");
        return Files.exists(fromModule) ? fromModule : Path.of("docs", "contract.md");
    }
}
