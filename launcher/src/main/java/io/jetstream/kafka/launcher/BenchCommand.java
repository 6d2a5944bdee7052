package io.jetstream.kafka.launcher;

import io.jetstream.kafka.testkit.bench.BenchPlan;
import io.jetstream.kafka.testkit.bench.BenchResult;
import io.jetstream.kafka.testkit.bench.WanBench;
import io.jetstream.kafka.testkit.site.SiteFiles;
import java.io.PrintStream;

/**
 * {@code ./jetstream bench <scenario>}: JetStream against MirrorMaker 2 on a two-site WAN (network
 * namespaces with tc-capped uplinks when run as root, else the loopback link emulator), writing
 * {@code target/bench/<scenario>.json} and {@code .html}. Exits 1 when a variant failed or lost,
 * duplicated or reordered a record; figures are reported, never judged.
 */
final class BenchCommand implements JetstreamCli.Command {

    @Override
    public String summary() {
        return "JetStream vs MirrorMaker 2 on a WAN: target/bench/<scenario>.json and .html (wan [--quick])";
    }

    @Override
    public int run(String[] args, PrintStream out) throws Exception {
        BenchPlan plan = BenchOptions.parse(args, SiteFiles.projectRoot().resolve("target").resolve("bench"));
        out.println("JetStream bench " + plan.outputName() + ": variants " + String.join(", ", plan.variants()));
        BenchResult result = new WanBench(plan, out).run();
        return result.ok() ? 0 : 1;
    }
}
