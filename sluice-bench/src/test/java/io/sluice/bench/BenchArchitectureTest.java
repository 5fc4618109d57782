package io.sluice.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;

/**
 * The layering of sluice-bench, checked on the compiled main classes of this module and every module it sees
 * (tests excluded): one package per concern, each using only the ones below it, no cycle between any two packages,
 * and the library reached through its public API only. Each rule is a method (not an ArchRule field) so that
 * Surefire's test filter selects it like any other test.
 */
@AnalyzeClasses(packages = "io.sluice",
        importOptions = {ImportOption.DoNotIncludeTests.class, BenchArchitectureTest.DoNotIncludeTestJars.class})
class BenchArchitectureTest {

    /**
     * Leaves out the test-jars of shuffle-netty and shuffle-tests. {@link ImportOption.DoNotIncludeTests} knows test
     * classes only by their {@code test-classes} directory, which is what a reactor build up to {@code test} puts on
     * the class path; up to {@code verify} the reactor hands out the packaged {@code -tests.jar} instead, whose
     * fixtures and tests would then count as main code.
     */
    static final class DoNotIncludeTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }

    /**
     * Main parses, runs and prints; the commands build checked options; the runs move records and measure; the
     * report formats what a run measured; the options are the values all of them read. The JMH benchmarks share only
     * the runs' environments, and the trace reader stands alone.
     */
    @ArchTest
    static void packages_formLayers(JavaClasses classes) {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Main").definedBy("io.sluice.bench")
                .layer("Commands").definedBy("io.sluice.bench.command..")
                .layer("Runs").definedBy("io.sluice.bench.run..")
                .layer("Report").definedBy("io.sluice.bench.report..")
                .layer("Options").definedBy("io.sluice.bench.options..")
                .layer("Benchmarks").definedBy("io.sluice.bench.jmh..")
                .layer("Trace").definedBy("io.sluice.bench.trace..")
                .whereLayer("Main").mayNotBeAccessedByAnyLayer()
                .whereLayer("Commands").mayOnlyBeAccessedByLayers("Main")
                .whereLayer("Runs").mayOnlyBeAccessedByLayers("Main", "Commands", "Benchmarks")
                .whereLayer("Report").mayOnlyBeAccessedByLayers("Main", "Runs")
                .whereLayer("Options").mayOnlyBeAccessedByLayers("Main", "Commands", "Runs", "Report")
                .whereLayer("Benchmarks").mayNotBeAccessedByAnyLayer()
                .whereLayer("Trace").mayNotBeAccessedByAnyLayer()
                .check(classes);
    }

    /** Every package is a slice: a cycle between any two, or around any loop, fails. */
    @ArchTest
    static void packages_areFreeOfCycles(JavaClasses classes) {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    /**
     * The commands, runs and benchmarks drive Sluice as an engine would: through io.sluice.api, never the Netty
     * implementation or the buffer pool behind it (only the trace reader reads the buffers' trace events).
     */
    @ArchTest
    static void bench_usesThePublicApiOnly(JavaClasses classes) {
        noClasses()
                .that().resideInAPackage("io.sluice.bench..")
                .and().resideOutsideOfPackage("io.sluice.bench.trace..")
                .should().dependOnClassesThat().resideInAnyPackage("io.sluice.netty..", "io.sluice.buffers..")
                .because("sluice-bench measures what an engine gets from the public API").check(classes);
    }
}
