package io.sluice.flink.itcases;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The profile's table: one row per ITCase class of the list, one column per run (Flink's own shuffle, Sluice,
 * Sluice with in-process reads over the transport), read from each run's surefire XML reports and
 * {@link SluiceUsageListener}'s lines; then, per run, the first failures of every class that did not pass. Printed
 * and written to {@code <reports>/table.md}. Run by the profile in the {@code verify} phase ({@link ItCaseTableReport});
 * a main, single thread.
 */
public final class ItCaseTable {

    /** The runs, in column order: directory under the reports directory and column heading. */
    static final List<String[]> RUNS = List.of(
            new String[] {"flink", "Flink's shuffle"},
            new String[] {"sluice", "Sluice"},
            new String[] {"sluice-no-local-channels", "Sluice, local-channels: false"});

    private static final int MESSAGE_LENGTH = 240;
    private static final int FAILURES_PER_CLASS = 3;

    private ItCaseTable() {
    }

    /**
     * Prints the table and writes it to {@code <reports>/table.md}.
     *
     * @param args the class list file and the reports directory (one subdirectory per run)
     * @throws Exception when a file cannot be read or written
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ItCaseTable <class list file> <reports directory>");
        }
        Path reports = Path.of(args[1]);
        String table = render(classes(Path.of(args[0])), reports);
        System.out.println(table);
        Files.createDirectories(reports);
        Files.writeString(reports.resolve("table.md"), table, StandardCharsets.UTF_8);
    }

    /** The class names of the list: one a line, {@code #} starts a comment. */
    static List<String> classes(Path list) throws IOException {
        List<String> classes = new ArrayList<>();
        for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
            int comment = line.indexOf('#');
            String name = (comment >= 0 ? line.substring(0, comment) : line).trim();
            if (!name.isEmpty()) {
                classes.add(name);
            }
        }
        return classes;
    }

    /** The table and the failures, as Markdown. */
    static String render(List<String> classes, Path reports) throws Exception {
        List<Map<String, ClassResult>> results = new ArrayList<>();
        List<Map<String, SluiceUsage.Summary>> usages = new ArrayList<>();
        List<Boolean> ran = new ArrayList<>();
        for (String[] run : RUNS) {
            Path dir = reports.resolve(run[0]);
            ran.add(Files.isDirectory(dir));
            Map<String, ClassResult> byClass = new HashMap<>();
            for (String className : classes) {
                Path xml = dir.resolve("TEST-" + className + ".xml");
                if (Files.isRegularFile(xml)) {
                    byClass.put(className, ClassResult.read(xml));
                }
            }
            results.add(byClass);
            usages.add(readUsage(dir.resolve("sluice-usage.csv")));
        }

        StringBuilder out = new StringBuilder();
        out.append("| Class |");
        for (String[] run : RUNS) {
            out.append(' ').append(run[1]).append(" |");
        }
        out.append(" Sluice's transport |\n|---|");
        out.append("---|".repeat(RUNS.size() + 1)).append('\n');
        int[] passed = new int[RUNS.size()];
        for (String className : classes) {
            out.append("| ").append(simpleName(className)).append(" |");
            for (int run = 0; run < RUNS.size(); run++) {
                ClassResult result = results.get(run).get(className);
                out.append(' ').append(cell(ran.get(run), result, usages.get(run).get(className))).append(" |");
                if (result != null && result.passed()) {
                    passed[run]++;
                }
            }
            out.append(' ').append(transport(usages.get(1).get(className))).append(" |\n");
        }
        out.append('\n');
        for (int run = 0; run < RUNS.size(); run++) {
            if (ran.get(run)) {
                out.append(RUNS.get(run)[1]).append(": ").append(passed[run]).append(" of ").append(classes.size())
                        .append(" classes pass.\n");
            }
        }
        for (int run = 0; run < RUNS.size(); run++) {
            if (!ran.get(run)) {
                continue;
            }
            out.append("\nNot passing on ").append(RUNS.get(run)[1]).append(":\n");
            for (String className : classes) {
                ClassResult result = results.get(run).get(className);
                if (result == null) {
                    out.append("- ").append(simpleName(className))
                            .append(": no report (the class's JVM was killed at the time limit, or crashed)\n");
                } else if (!result.passed()) {
                    out.append("- ").append(simpleName(className)).append(":\n");
                    for (String failure : result.failures()) {
                        out.append("  - ").append(failure).append('\n');
                    }
                }
            }
        }
        return out.toString();
    }

    private static String cell(boolean ran, ClassResult result, SluiceUsage.Summary usage) {
        if (!ran) {
            return "not run";
        }
        if (result == null) {
            return "**no result** (time limit)";
        }
        String memory = usage != null && usage.segmentsInUse() > 0
                ? ", **" + usage.segmentsInUse() + " segments kept**" : "";
        String time = String.format(Locale.ROOT, " · %.0f s", result.seconds());
        if (result.tests() == result.skipped()) {
            return "skipped" + time + memory;
        }
        if (result.passed()) {
            return "pass " + (result.tests() - result.skipped()) + time + memory;
        }
        return "**FAIL** " + result.failed() + " of " + (result.tests() - result.skipped()) + time + memory;
    }

    private static String transport(SluiceUsage.Summary usage) {
        if (usage == null) {
            return "";
        }
        if (usage.bytesSent() == 0) {
            return usage.environments() + " TM, in-process only";
        }
        return String.format(Locale.ROOT, "%d TM, %.1f MiB", usage.environments(),
                usage.bytesSent() / (1024.0 * 1024.0));
    }

    private static Map<String, SluiceUsage.Summary> readUsage(Path csv) throws IOException {
        Map<String, SluiceUsage.Summary> usage = new HashMap<>();
        if (!Files.isRegularFile(csv)) {
            return usage;
        }
        for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
            String[] fields = line.split(",");
            if (fields.length == 4) {
                usage.put(fields[0], new SluiceUsage.Summary(Integer.parseInt(fields[1]),
                        Long.parseLong(fields[2]), Integer.parseInt(fields[3])));
            }
        }
        return usage;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** One class's surefire report. */
    record ClassResult(int tests, int failed, int skipped, double seconds, List<String> failures) {

        /**
         * @param tests    test cases run
         * @param failed   failures and errors
         * @param skipped  skipped or aborted (an assumption not met)
         * @param seconds  the class's time
         * @param failures the first failures: test name, exception type and the first line of its message
         */
        /** Characters outside XML 1.0's Char production (surrogate pairs are fine as pairs in a Java string). */
        private static final Pattern XML_FORBIDDEN =
                Pattern.compile("[^\\x09\\x0A\\x0D\\x20-\\uD7FF\\uD800-\\uDFFF\\uE000-\\uFFFD]");

        ClassResult {
            failures = List.copyOf(failures);
        }

        boolean passed() {
            return failed == 0 && tests > skipped;
        }

        static ClassResult read(Path xml) throws Exception {
            // Flink's tests print characters XML 1.0 forbids (U+FFFF in a test's output), which surefire writes
            // into the report as they are; they are dropped before parsing.
            String text = XML_FORBIDDEN.matcher(Files.readString(xml, StandardCharsets.UTF_8)).replaceAll("");
            Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new InputSource(new StringReader(text)));
            Element suite = document.getDocumentElement();
            int failed = intAttribute(suite, "failures") + intAttribute(suite, "errors");
            List<String> failures = new ArrayList<>();
            NodeList cases = suite.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength() && failures.size() < FAILURES_PER_CLASS; i++) {
                Element testCase = (Element) cases.item(i);
                Element problem = firstChild(testCase, "failure", "error");
                if (problem != null) {
                    failures.add(testCase.getAttribute("name") + ": " + problem.getAttribute("type") + ": "
                            + firstLine(problem.getAttribute("message")));
                }
            }
            return new ClassResult(intAttribute(suite, "tests"), failed, intAttribute(suite, "skipped"),
                    Double.parseDouble(suite.getAttribute("time").replace(",", "")), failures);
        }

        private static Element firstChild(Element parent, String... names) {
            for (Node child = parent.getFirstChild(); child != null; child = child.getNextSibling()) {
                if (child instanceof Element element && List.of(names).contains(element.getTagName())) {
                    return element;
                }
            }
            return null;
        }

        private static int intAttribute(Element element, String name) {
            String value = element.getAttribute(name);
            return value.isEmpty() ? 0 : Integer.parseInt(value);
        }

        private static String firstLine(String message) {
            String line = message.lines().findFirst().orElse("").replace('|', '/');
            return line.length() <= MESSAGE_LENGTH ? line : line.substring(0, MESSAGE_LENGTH) + "...";
        }
    }
}
