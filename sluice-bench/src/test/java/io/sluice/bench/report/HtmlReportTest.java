package io.sluice.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.bench.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code --report FILE.html}: a well-formed, self-contained page with the four charts and their data. */
class HtmlReportTest {

    @TempDir
    Path directory;

    @Test
    void realRun_writesAWellFormedSelfContainedPage_withEverySeries() throws Exception {
        Path page = directory.resolve("run.html");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = Main.run(new String[] {"--producers", "2", "--consumers", "2", "--environments", "2",
            "--bytes", "16m", "--progress", "off", "--report", page.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertEquals(Main.EXIT_PASS, status, err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("report written to " + page.toAbsolutePath()));
        String html = Files.readString(page);
        Document document = parse(html);
        Map<String, Element> series = seriesByName(document);
        assertEquals(4, series.size(), "series: " + series.keySet());
        assertTrue(points(series.get(HtmlReport.THROUGHPUT)) >= 1, "throughput has its samples");
        assertTrue(points(series.get(HtmlReport.POOL_USAGE)) >= 1, "pool usage has its samples");
        assertEquals(4, points(series.get(HtmlReport.LATENCY)), "p50, p99, p99.9 and max");
        assertTrue(points(series.get(HtmlReport.BACKPRESSURE)) >= 1, "the writers' blocked time, from their metrics");
        assertFalse(html.contains("not measured"), "every chart has its data");
        assertSelfContained(document, html);
    }

    @Test
    void measuredBackpressure_isChartedPerWriterAndSecond() throws Exception {
        AtomicLong bytes = new AtomicLong();
        AtomicLong blocked = new AtomicLong();
        BackpressureSource twoWriters = new BackpressureSource() {
            @Override
            public long blockedNanos() {
                return blocked.get();
            }

            @Override
            public int writers() {
                return 2;
            }
        };
        ReportSeries series = new ReportSeries(bytes::get, () -> 30, () -> 120, twoWriters, System.nanoTime());
        for (int i = 0; i < 5; i++) {
            bytes.addAndGet(1 << 20);
            blocked.addAndGet(1_000_000);
            series.sample();
        }
        RunSummary summary = new RunSummary("run", "1 producer x 1 consumer", 1, 1, "64", 5 << 20, 100, 1_000_000_000L,
                new LatencySummary(100, 1000, 2000, 3000, 4000), MemoryPeak.NONE, 0, null, SoakReport.NONE,
                FlowSummary.NONE, series);

        Document document = parse(HtmlReport.format(summary));

        Map<String, Element> byName = seriesByName(document);
        assertEquals(5, points(byName.get(HtmlReport.BACKPRESSURE)));
        assertEquals(5, points(byName.get(HtmlReport.THROUGHPUT)));
        assertEquals(25.0, series.poolUsagePercent(4), 1e-9, "30 of 120 buffers in use");
        assertTrue(series.backpressuredMsPerSecond(4) > 0, "blocked time grew");
    }

    @Test
    void longRun_thinsItsSeries_keepingMemoryBounded() {
        ReportSeries series = new ReportSeries(() -> 0, () -> 0, () -> 1, BackpressureSource.NOT_MEASURED, 0);
        for (int i = 0; i < 3 * ReportSeries.MAX_POINTS; i++) {
            series.sample();
        }
        assertTrue(series.size() <= ReportSeries.MAX_POINTS, "points: " + series.size());
        assertTrue(series.size() >= ReportSeries.MAX_POINTS / 2, "points: " + series.size());
    }

    @Test
    void unmeasuredBackpressure_saysSo_insteadOfAFlatLine() throws Exception {
        ReportSeries series = new ReportSeries(() -> 0, () -> 0, () -> 1, BackpressureSource.NOT_MEASURED, 0);
        series.sample();
        RunSummary summary = new RunSummary("run", "shape", 1, 1, "64", 0, 0, 1, LatencySummary.NONE,
                MemoryPeak.NONE, 0, null, SoakReport.NONE, FlowSummary.NONE, series);

        String html = HtmlReport.format(summary);

        assertEquals(0, points(seriesByName(parse(html)).get(HtmlReport.BACKPRESSURE)));
        assertTrue(html.contains("not measured"), html);
    }

    @Test
    void textIsEscaped_soAFailureMessageCannotBreakThePage() throws Exception {
        RunSummary failed = new RunSummary("run", "<shape> & \"quotes\"", 1, 1, "64", 0, 0, 0, LatencySummary.NONE,
                MemoryPeak.NONE, 0, "record <7> of channel 'x' & more", SoakReport.NONE, FlowSummary.NONE,
                ReportSeries.NONE);

        String html = HtmlReport.format(failed);

        Document document = parse(html);
        assertTrue(document.getDocumentElement().getTextContent().contains("record <7> of channel 'x' & more"));
        assertEquals(4, seriesByName(document).size(), "every chart is there, empty ones say why");
    }

    private static void assertSelfContained(Document document, String html) {
        assertEquals(0, document.getElementsByTagName("script").getLength(), "no script");
        assertEquals(0, document.getElementsByTagName("link").getLength(), "no stylesheet link");
        assertEquals(0, document.getElementsByTagName("img").getLength(), "no image to fetch");
        assertFalse(html.contains("http://") && html.replace("http://www.w3.org/", "").contains("http://"),
                "no address but the XML namespaces");
        assertFalse(html.contains("https://"), "no address");
        assertEquals(4, document.getElementsByTagName("svg").getLength(), "four inline charts");
    }

    private static Document parse(String html) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    private static Map<String, Element> seriesByName(Document document) {
        Map<String, Element> byName = new HashMap<>();
        NodeList groups = document.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++) {
            Element group = (Element) groups.item(i);
            if (group.getAttribute("class").startsWith("series")) {
                byName.put(group.getAttribute("data-series"), group);
            }
        }
        return byName;
    }

    private static int points(Element series) {
        return Integer.parseInt(series.getAttribute("data-points"));
    }
}
