package io.jetstream.kafka.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A line chart as inline SVG, for a report that opens from disk without a server or the internet:
 * linear or logarithmic x axis, "nice" ticks, one polyline per series with a legend, and labelled
 * vertical marks (phase boundaries).
 */
final class SvgChart {

    private static final String[] COLORS = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
        "#393b79", "#e7969c", "#637939", "#f7b6d2",
    };
    private static final int LEFT = 60;
    private static final int RIGHT = 170;
    private static final int TOP = 30;
    private static final int BOTTOM = 45;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final int width;
    private final int height;
    private final Map<String, List<double[]>> series = new LinkedHashMap<>();
    private final Map<String, Double> marks = new LinkedHashMap<>();
    private final java.util.Set<String> dashed = new java.util.HashSet<>();
    private boolean logX;
    private double fixedYTop;

    SvgChart(String title, String xLabel, String yLabel, int width, int height) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.width = width;
        this.height = height;
    }

    SvgChart logX() {
        this.logX = true;
        return this;
    }

    /** A fixed top of the y axis (values above it are drawn at the top); 0 = fit the data. */
    SvgChart yTop(double top) {
        this.fixedYTop = top;
        return this;
    }

    /** Draws {@code name} (a reference line, e.g. the machine total) dashed in black. */
    SvgChart dashed(String name) {
        dashed.add(name);
        return this;
    }

    SvgChart series(String name, List<double[]> points) {
        series.put(name, points);
        return this;
    }

    SvgChart series(String name, List<Double> xs, List<Double> ys) {
        List<double[]> points = new ArrayList<>();
        for (int i = 0; i < Math.min(xs.size(), ys.size()); i++) {
            points.add(new double[] {xs.get(i), ys.get(i)});
        }
        return series(name, points);
    }

    SvgChart marks(Map<String, Double> xMarks) {
        marks.putAll(xMarks);
        return this;
    }

    String render() {
        double xMin = Double.POSITIVE_INFINITY;
        double xMax = Double.NEGATIVE_INFINITY;
        double yMax = 0;
        for (List<double[]> points : series.values()) {
            for (double[] p : points) {
                double x = logX ? Math.max(p[0], 1) : p[0];
                xMin = Math.min(xMin, x);
                xMax = Math.max(xMax, x);
                yMax = Math.max(yMax, p[1]);
            }
        }
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height, width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s</text>%n",
                LEFT, escape(title)));
        if (xMin == Double.POSITIVE_INFINITY) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">no data</text>%n</svg>%n", LEFT,
                    height / 2));
            return svg.toString();
        }
        if (logX) {
            xMin = Math.pow(10, Math.floor(Math.log10(xMin)));
            xMax = Math.pow(10, Math.ceil(Math.log10(Math.max(xMax, xMin * 10))));
        } else {
            xMin = Math.min(0, xMin);
            xMax = xMax <= xMin ? xMin + 1 : xMax;
        }
        double yTop = fixedYTop > 0 ? fixedYTop : niceCeiling(yMax <= 0 ? 1 : yMax * 1.05);
        Frame frame = new Frame(xMin, xMax, yTop);
        axes(svg, frame);
        int markIndex = 0;
        for (Map.Entry<String, Double> mark : marks.entrySet()) {
            double x = frame.x(mark.getValue());
            // labels alternate between two rows so that close marks stay readable
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" "
                    + "stroke-dasharray=\"4,3\"/><text x=\"%.1f\" y=\"%d\" fill=\"#666\" font-size=\"10\">%s</text>%n",
                    x, TOP, x, height - BOTTOM, x + 2, TOP + 10 + 11 * (markIndex++ % 2), escape(mark.getKey())));
        }
        int index = 0;
        for (Map.Entry<String, List<double[]>> entry : series.entrySet()) {
            boolean isDashed = dashed.contains(entry.getKey());
            String color = isDashed ? "#000" : COLORS[index % COLORS.length];
            StringBuilder points = new StringBuilder();
            for (double[] p : entry.getValue()) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", frame.x(p[0]), frame.y(p[1])));
            }
            svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s "
                    + "points=\"%s\"/>%n", color, isDashed ? " stroke-dasharray=\"5,3\"" : "",
                    points.toString().trim()));
            int legendY = TOP + 14 * index;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", width - RIGHT + 12, legendY + 4, color,
                    width - RIGHT + 28, legendY + 8, escape(entry.getKey())));
            index++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private void axes(StringBuilder svg, Frame frame) {
        int x0 = LEFT;
        int x1 = width - RIGHT;
        int y0 = height - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#333\"/>%n", x0, TOP, x1 - x0, y0 - TOP));
        for (double y : linearTicks(0, frame.yTop)) {
            double py = frame.y(y);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", x0, py, x1, py, x0 - 4, py + 4,
                    label(y)));
        }
        List<Double> xTicks = logX ? logTicks(frame.xMin, frame.xMax) : linearTicks(frame.xMin, frame.xMax);
        for (double x : xTicks) {
            double px = frame.x(x);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", px, TOP, px, y0, px, y0 + 14,
                    label(x)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                (x0 + x1) / 2, height - 8, escape(xLabel)));
        svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" text-anchor=\"middle\" "
                + "transform=\"rotate(-90 12 %d)\">%s</text>%n", (TOP + y0) / 2, (TOP + y0) / 2, escape(yLabel)));
    }

    /** Maps data to pixels. */
    private final class Frame {
        final double xMin;
        final double xMax;
        final double yTop;

        Frame(double xMin, double xMax, double yTop) {
            this.xMin = xMin;
            this.xMax = xMax;
            this.yTop = yTop;
        }

        double x(double value) {
            double span = width - RIGHT - LEFT;
            if (logX) {
                double v = Math.log10(Math.max(value, xMin));
                return LEFT + span * (v - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin));
            }
            return LEFT + span * (value - xMin) / (xMax - xMin);
        }

        double y(double value) {
            double span = height - BOTTOM - TOP;
            return height - BOTTOM - span * Math.min(value, yTop) / yTop;
        }
    }

    /** The smallest 1, 2 or 5 times a power of ten at or above {@code value}. */
    static double niceCeiling(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * power >= value - 1e-12) {
                return m * power;
            }
        }
        return 10 * power;
    }

    /** About five evenly spaced ticks from {@code min} to {@code max} on a 1-2-5 step. */
    static List<Double> linearTicks(double min, double max) {
        double step = niceCeiling((max - min) / 5);
        List<Double> ticks = new ArrayList<>();
        for (double t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) {
            ticks.add(Math.round(t / step) * step);
        }
        return ticks;
    }

    static List<Double> logTicks(double min, double max) {
        List<Double> ticks = new ArrayList<>();
        for (double decade = min; decade <= max * 1.0001; decade *= 10) {
            for (double m : new double[] {1, 2, 5}) {
                if (decade * m <= max * 1.0001) {
                    ticks.add(decade * m);
                }
            }
        }
        return ticks;
    }

    private static String label(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e9) {
            return Long.toString((long) value);
        }
        return String.format(Locale.ROOT, "%.2g", value);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
