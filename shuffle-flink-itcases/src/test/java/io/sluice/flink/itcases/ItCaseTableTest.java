package io.sluice.flink.itcases;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table read from surefire reports: a row per listed class, a cell per run, the failures below. */
class ItCaseTableTest {

    @TempDir
    Path dir;

    @Test
    void theListIsOneClassALineWithComments() throws Exception {
        Path list = dir.resolve("list.txt");
        Files.writeString(list, "# heading\n\norg.example.AITCase\norg.example.BITCase  # why it is here\n",
                StandardCharsets.UTF_8);

        assertEquals(List.of("org.example.AITCase", "org.example.BITCase"), ItCaseTable.classes(list));
    }

    @Test
    void eachRunGetsACellAndEveryClassThatDidNotPassItsFailures() throws Exception {
        Path reports = dir.resolve("reports");
        report(reports.resolve("flink"), "org.example.AITCase", 3, 0, 0, "");
        report(reports.resolve("flink"), "org.example.BITCase", 2, 0, 0, "");
        report(reports.resolve("sluice"), "org.example.AITCase", 3, 0, 1, "");
        report(reports.resolve("sluice"), "org.example.BITCase", 2, 1, 0,
                "<testcase name=\"keyed\" time=\"1\"><error message=\"refused | by Sluice&#10;second line\" "
                        + "type=\"java.lang.IllegalStateException\"/></testcase>");
        Files.writeString(reports.resolve("sluice").resolve("sluice-usage.csv"),
                "org.example.AITCase,2,3145728,0\norg.example.BITCase,1,0,4\n", StandardCharsets.UTF_8);

        String table = ItCaseTable.render(List.of("org.example.AITCase", "org.example.BITCase",
                "org.example.CITCase"), reports);

        assertTrue(table.contains("| AITCase | pass 3 · 12 s | pass 2 · 12 s | not run | 2 TM, 3.0 MiB |\n"), table);
        assertTrue(table.contains("| BITCase | pass 2 · 12 s | **FAIL** 1 of 2 · 12 s, **4 segments kept** | not run "
                + "| 1 TM, in-process only |\n"), table);
        assertTrue(table.contains("| CITCase | **no result** (time limit) | **no result** (time limit) | not run |  |\n"),
                table);
        assertTrue(table.contains("Sluice: 1 of 3 classes pass.\n"), table);
        assertTrue(table.contains("- BITCase:\n  - keyed: java.lang.IllegalStateException: refused / by Sluice\n"),
                table);
        assertTrue(table.contains("- CITCase: no report"), table);
    }

    @Test
    void aReportWithACharacterXmlForbids_asFlinksTestsPrintThem_isStillRead() throws Exception {
        Path reports = dir.resolve("reports");
        report(reports.resolve("sluice"), "org.example.AITCase", 2, 0, 0,
                "<testcase name=\"a\" time=\"1\"><system-out><![CDATA[last value \uFFFF\uFFFF]]></system-out>"
                        + "</testcase>");

        String table = ItCaseTable.render(List.of("org.example.AITCase"), reports);

        assertTrue(table.contains("| AITCase | not run | pass 2 · 12 s |"), table);
    }

    private static void report(Path run, String className, int tests, int errors, int skipped, String cases)
            throws Exception {
        Files.createDirectories(run);
        Files.writeString(run.resolve("TEST-" + className + ".xml"),
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" + className + "\" time=\"12.3\" "
                        + "tests=\"" + tests + "\" errors=\"" + errors + "\" skipped=\"" + skipped
                        + "\" failures=\"0\">" + cases + "</testsuite>\n",
                StandardCharsets.UTF_8);
    }
}
