package io.jetstream.kafka.launcher;

import io.jetstream.kafka.bench.BenchPlan;
import io.jetstream.kafka.bench.BenchResult;
import io.jetstream.kafka.bench.EnvironmentGrid;
import io.jetstream.kafka.bench.PartitionSweep;
import io.jetstream.kafka.bench.WanBench;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code ./jetstream bench <scenario>}: JetStream against MirrorMaker 2 on a two-site WAN (network
 * namespaces with tc-capped uplinks when run as root, else the loopback link emulator), writing
 * {@code target/bench/<scenario>.json} and {@code .html}. Exits 1 when a variant failed or lost,
 * duplicated or reordered a record; figures are reported, never judged.
 */
@Command(name = "bench", sortOptions = false,
        description = "JetStream vs MirrorMaker 2 on a WAN: target/bench/<scenario>.json and .html"
                + " (wan [--scenario steady|varying-rate|cold-start|capacity-change|heterogeneous|grid] [--quick])",
        footer = {"", "Exit code 0 when every variant delivered every record exactly once and in order, 1 otherwise,"
                + " 2 for a bad option."})
final class BenchCommand implements Callable<Integer> {

    private final PrintStream out;

    @Spec
    private CommandSpec spec;

    @Mixin
    private BenchArguments arguments;

    @Mixin
    private HelpOption help;

    BenchCommand(PrintStream out) {
        this.out = out;
    }

    /** The options as parsed (for tests). */
    BenchArguments arguments() {
        return arguments;
    }

    /** The plan the command line describes; {@code defaultOutput} is the folder without {@code --out}. */
    BenchPlan plan(Path defaultOutput) {
        // The command as typed, for the report: everything the launcher was given, "bench" included.
        String typed = "./jetstream " + String.join(" ", spec.root().commandLine().getParseResult().originalArgs());
        return arguments.plan(defaultOutput, typed);
    }

    @Override
    public Integer call() throws Exception {
        BenchPlan plan = plan(SiteFiles.projectRoot().resolve("target").resolve("bench"));
        arguments.flightRecordings().ifPresent(dir -> {
            io.jetstream.kafka.testkit.site.JavaProcess.recordFlightsInto(dir.toAbsolutePath());
            out.println("Flight Recorder: every child JVM records into " + dir.toAbsolutePath());
        });
        List<EnvironmentGrid.Cell> cells = arguments.gridCells(); // refuses --cells without the grid
        if (arguments.grid()) {
            return grid(plan, cells);
        }
        List<Integer> counts = arguments.partitionCounts();
        if (counts.size() > 1) {
            return sweep(plan, counts);
        }
        out.println("JetStream bench " + plan.outputName() + ": variants " + String.join(", ", plan.variants()));
        BenchResult result = new WanBench(plan, out).run();
        return result.ok() ? 0 : 1;
    }

    /** The environment grid: each cell's plan run in turn, each under {@code <out>/<cell>}, then the table. */
    private int grid(BenchPlan base, List<EnvironmentGrid.Cell> cells) throws Exception {
        return EnvironmentGrid.run(cells, base, arguments.quick(), out).ok() ? 0 : 1;
    }

    /** The plan once per partition count, each run under {@code <out>/p<count>}, then the cost curve. */
    private int sweep(BenchPlan plan, List<Integer> counts) throws Exception {
        List<PartitionSweep.Point> points = new ArrayList<>();
        boolean ok = true;
        for (int count : counts) {
            BenchPlan point = plan.withPartitions(count).withOutputDir(plan.outputDir().resolve("p" + count));
            out.println("JetStream bench " + point.outputName() + " at " + count + " partitions: variants "
                    + String.join(", ", point.variants()));
            BenchResult result = new WanBench(point, out).run();
            ok &= result.ok();
            points.addAll(PartitionSweep.points(count, result));
        }
        PartitionSweep.report(points, plan.outputDir(), plan.commandLine(), out);
        return ok ? 0 : 1;
    }
}
