package io.sluice.bench.report;

import java.util.Locale;

/**
 * Draws the report's charts as inline SVG, with no script and no external resource: a line chart of series over
 * time, and a bar chart. Every series is a {@code <g class="series" data-series="NAME">} element, so a test (or a
 * reader of the page source) finds each by name. Stateless; any thread.
 */
final class SvgChart {

    static final int WIDTH = 720;
    static final int HEIGHT = 300;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 36;
    private static final int BOTTOM = 46;
    private static final int TICKS = 5;
    private static final String[] COLOURS = {"#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df"};

    private SvgChart() {
    }

    /**
     * @param title the chart's title
     * @param xLabel the x axis, e.g. "seconds since start"
     * @param yLabel the y axis, with its unit
     * @param xs the x of every point, ascending
     * @param names one name per series (the {@code data-series} attribute and the legend)
     * @param ys one array per series, as long as {@code xs}
     * @return an {@code <svg>} element
     */
    static String line(String title, String xLabel, String yLabel, double[] xs, String[] names, double[][] ys) {
        double xMax = niceCeiling(xs.length == 0 ? 1 : xs[xs.length - 1]);
        double yMax = niceCeiling(max(ys));
        StringBuilder svg = open(title);
        axes(svg, xLabel, yLabel, xMax, yMax);
        for (int s = 0; s < names.length; s++) {
            String colour = COLOURS[s % COLOURS.length];
            svg.append("<g class=\"series\" data-series=\"").append(escape(names[s])).append("\" data-points=\"")
                .append(xs.length).append("\">");
            if (xs.length == 1) {
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
                        x(xs[0], xMax), y(ys[s][0], yMax), colour));
            } else {
                svg.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"2\" points=\"");
                for (int i = 0; i < xs.length; i++) {
                    svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(xs[i], xMax), y(ys[s][i], yMax)));
                }
                svg.append("\"/>");
            }
            svg.append("</g>");
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                            + "font-size=\"12\">%s</text>",
                    LEFT + 10 + 170 * s, TOP - 12, colour, LEFT + 26 + 170 * s, TOP - 7, escape(names[s])));
        }
        return svg.append("</svg>").toString();
    }

    /**
     * @param title the chart's title
     * @param yLabel the y axis, with its unit
     * @param name the series' name (the {@code data-series} attribute)
     * @param labels one label per bar
     * @param values one value per bar
     * @return an {@code <svg>} element
     */
    static String bars(String title, String yLabel, String name, String[] labels, double[] values) {
        double yMax = niceCeiling(max(new double[][] {values}));
        StringBuilder svg = open(title);
        axes(svg, null, yLabel, 0, yMax);
        int plotWidth = WIDTH - LEFT - RIGHT;
        double slot = plotWidth / (double) Math.max(1, labels.length);
        svg.append("<g class=\"series\" data-series=\"").append(escape(name)).append("\" data-points=\"")
            .append(labels.length).append("\">");
        for (int i = 0; i < labels.length; i++) {
            double top = y(values[i], yMax);
            double left = LEFT + i * slot + slot * 0.2;
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %s</title></rect>",
                    left, top, slot * 0.6, HEIGHT - BOTTOM - top, COLOURS[0], escape(labels[i]), number(values[i])));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
                    + "text-anchor=\"middle\">%s</text>", left + slot * 0.3, top - 4, number(values[i])));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" "
                    + "text-anchor=\"middle\">%s</text>", left + slot * 0.3, HEIGHT - BOTTOM + 16, escape(labels[i])));
        }
        return svg.append("</g></svg>").toString();
    }

    /**
     * @param title the chart's title
     * @param name the series that has no data (the {@code data-series} attribute)
     * @param why what the reader should know, e.g. which metric is missing
     * @return an {@code <svg>} element that says so
     */
    static String empty(String title, String name, String why) {
        StringBuilder svg = open(title);
        svg.append("<g class=\"series no-data\" data-series=\"").append(escape(name)).append("\" data-points=\"0\">")
            .append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\" "
                    + "fill=\"#57606a\">%s</text>", WIDTH / 2, HEIGHT / 2, escape(why)))
            .append("</g>");
        return svg.append("</svg>").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
            .append("\" role=\"img\" font-family=\"sans-serif\"><title>").append(escape(title)).append("</title>")
            .append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
            .append("<text x=\"").append(LEFT).append("\" y=\"16\" font-size=\"15\" font-weight=\"bold\">")
            .append(escape(title)).append("</text>");
        return svg;
    }

    private static void axes(StringBuilder svg, String xLabel, String yLabel, double xMax, double yMax) {
        int bottom = HEIGHT - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<g class=\"axes\" stroke=\"#8c959f\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                + "y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>",
                LEFT, TOP, LEFT, bottom, LEFT, bottom, WIDTH - RIGHT, bottom));
        for (int t = 0; t <= TICKS; t++) {
            double value = yMax * t / TICKS;
            double at = y(value, yMax);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>",
                    LEFT + 1, at, WIDTH - RIGHT, at, LEFT - 6, at + 4, number(value)));
            if (xLabel != null) {
                double x = xMax * t / TICKS;
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                        + "text-anchor=\"middle\">%s</text>", x(x, xMax), bottom + 15, number(x)));
            }
        }
        if (xLabel != null) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s"
                    + "</text>", LEFT + (WIDTH - LEFT - RIGHT) / 2, HEIGHT - 8, escape(xLabel)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
                + "transform=\"rotate(-90 14 %d)\">%s</text>", TOP + (bottom - TOP) / 2, TOP + (bottom - TOP) / 2,
                escape(yLabel)));
    }

    private static double x(double value, double xMax) {
        return LEFT + (WIDTH - LEFT - RIGHT) * value / xMax;
    }

    private static double y(double value, double yMax) {
        int bottom = HEIGHT - BOTTOM;
        return bottom - (bottom - TOP) * Math.max(0, value) / yMax;
    }

    private static double max(double[][] series) {
        double max = 0;
        for (double[] values : series) {
            for (double value : values) {
                if (Double.isFinite(value)) {
                    max = Math.max(max, value);
                }
            }
        }
        return max;
    }

    /** @return 1, 2, 2.5 or 5 times a power of ten, at least {@code value}; 1 for 0 */
    static double niceCeiling(double value) {
        if (!(value > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        String text = String.format(Locale.ROOT, Math.abs(value) >= 10 ? "%.1f" : "%.3g", value);
        return text.contains(".") && !text.contains("e") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
    }

    /** @return {@code text} safe inside XML text and attribute values */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
