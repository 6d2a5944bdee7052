package io.jetstream.kafka.bench.wan;

import static org.assertj.core.api.Assertions.assertThat;

import io.jetstream.kafka.bench.wan.TopologyCommands.Step;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TopologyCommandsTest {

    private static final Pattern IPV4 = Pattern.compile("\\b(\\d{1,3})\\.(\\d{1,3})\\.\\d{1,3}\\.\\d{1,3}\\b");

    private final AddressPlan plan = AddressPlan.of(WanSpec.defaults(), 0);
    private final List<String> commands = TopologyCommands.build(plan, true, DelayLineCpus.of(List.of(0, 1))).stream()
            .map(step -> CommandRunner.render(step.command())).toList();

    @Test
    void hostA1IsBuiltWithTheseCommands() {
        List<String> a1 = TopologyCommands.host(plan, plan.links().get(0), false).stream()
                .map(step -> CommandRunner.render(step.command())).toList();

        assertThat(a1).containsExactly(
                "ip netns add js-a1",
                "ip netns exec js-a1 sh -ec '" + TopologyCommands.SYSCTL_SCRIPT + "' sh"
                        + " net/ipv4/tcp_congestion_control bbr net/ipv4/tcp_no_metrics_save 1",
                "ip -n js-a1 link set dev lo up",
                "ip link add name js-a1 type veth peer name lan0 netns js-a1",
                "ip link set dev js-a1 master jsbrA up",
                "ip -n js-a1 addr add 198.18.1.1/24 dev lan0",
                "ip -n js-a1 link set dev lan0 up",
                "ip -n js-a1 link add name wan0 type veth peer name wan-a1 netns js-wan",
                "ip -n js-a1 link set dev wan0 gso_max_segs 1",
                "ip -n js-a1 addr add 198.19.0.1/31 dev wan0",
                "ip -n js-a1 link set dev wan0 up",
                "ip -n js-wan addr add 198.19.0.0/31 dev wan-a1",
                "ip -n js-wan link set dev wan-a1 up",
                "tc -n js-a1 qdisc replace dev wan0 root tbf rate 40000000bit burst 32768 limit 250000",
                "ip -n js-a1 route add 198.18.2.0/24 via 198.19.0.0 dev wan0 src 198.18.1.1",
                "ip -n js-wan route add 198.18.1.1/32 via 198.19.0.1 dev wan-a1",
                "ip -n js-wan rule add iif wan-a1 lookup 100 priority 100");
    }

    @Test
    void theCoreSendsEverythingFromTheHostsThroughThePersistentTun() {
        assertThat(commands).contains(
                "ip netns add js-wan",
                "ip -n js-wan tuntap add dev dl0 mode tun",
                "ip -n js-wan link set dev dl0 mtu 1500 txqueuelen 4096 up",
                "ip -n js-wan route add default dev dl0 table 100",
                "ip netns exec js-wan sh -ec '" + TopologyCommands.RPS_SCRIPT + "' sh dl0 2");
        for (String host : List.of("a1", "a2", "a3", "b1", "b2")) {
            assertThat(commands).contains("ip -n js-wan rule add iif wan-" + host + " lookup 100 priority 100");
        }
        assertThat(commands).contains("ip -n js-b2 route add 198.18.1.0/24 via 198.19.0.8 dev wan0 src 198.18.2.2");
    }

    @Test
    void onlyTheCoreForwardsAndTheRootNamespaceOnlyGetsBridgesAndPorts() {
        assertThat(commands.stream().filter(command -> command.contains("ip_forward")))
                .singleElement().asString().startsWith("ip netns exec js-wan ");
        List<String> rootCommands = commands.stream()
                .filter(command -> !command.startsWith("ip -n ") && !command.startsWith("tc -n ")
                        && !command.startsWith("ip netns "))
                .toList();
        assertThat(rootCommands).allSatisfy(command -> assertThat(command).matches(
                "ip (link add name js(brA|brB|-[ab]\\d) .*|addr add 198\\.18\\.[12]\\.254/24 dev jsbr[AB]"
                        + "|link set dev js(brA|brB|-[ab]\\d)( master jsbr[AB])? up)"));
        assertThat(rootCommands).hasSize(2 * 3 + 5 * 2);
    }

    @Test
    void everyNamespaceGetsItsSysctlsBeforeItsFirstInterface() {
        for (String namespace : List.of("js-wan", "js-a1", "js-a2", "js-a3", "js-b1", "js-b2")) {
            int sysctls = indexOf(command -> command.startsWith("ip netns exec " + namespace + " sh -ec "));
            int firstLink = indexOf(command -> command.contains("netns " + namespace) && command.contains("link add")
                    || command.startsWith("ip -n " + namespace + " link add")
                    || command.startsWith("ip -n " + namespace + " tuntap add"));
            assertThat(sysctls).as(namespace).isGreaterThan(indexOf(command -> command.equals("ip netns add " + namespace)));
            assertThat(sysctls).as(namespace).isLessThan(firstLink);
        }
        assertThat(commands).contains("ip netns exec js-b1 sh -ec '" + TopologyCommands.SYSCTL_SCRIPT + "' sh"
                + " net/ipv4/tcp_congestion_control bbr net/ipv4/tcp_no_metrics_save 1"
                + " net/ipv6/conf/all/disable_ipv6 1 net/ipv6/conf/default/disable_ipv6 1");
    }

    @Test
    void everyAddressLiesIn198Dot18Slash15() {
        for (String command : commands) {
            Matcher matcher = IPV4.matcher(command);
            while (matcher.find()) {
                assertThat(matcher.group(1)).as(command).isEqualTo("198");
                assertThat(matcher.group(2)).as(command).isIn("18", "19");
            }
        }
    }

    @Test
    void onlyTheTuningIsOptional() {
        assertThat(commands).filteredOn(command -> command.contains("gso_max_segs")).hasSize(5);
        assertThat(TopologyCommands.build(plan, true, DelayLineCpus.of(List.of(0, 1))).stream()
                .filter(step -> !step.required()).map(step -> CommandRunner.render(step.command())))
                .allMatch(command -> command.contains("gso_max_segs") || command.contains("rps_cpus"))
                .hasSize(6);
    }

    @Test
    void withOneCpuThereIsNoPacketSteering() {
        assertThat(TopologyCommands.build(plan, true, DelayLineCpus.of(List.of(0))))
                .noneMatch(step -> String.join(" ", step.command()).contains("rps_cpus"));
    }

    @Test
    void uplinkShaperChangesTheRateInPlace() {
        Step step = TopologyCommands.uplinkShaper("js-a1", TokenBucket.forRate(10_000_000), "change");

        assertThat(CommandRunner.render(step.command()))
                .isEqualTo("tc -n js-a1 qdisc change dev wan0 root tbf rate 10000000bit burst 32768 limit 62500");
    }

    @Test
    void sysctlScriptWritesEachPair() {
        Step step = TopologyCommands.sysctls("js-a1", Map.of("net/ipv4/ip_forward", "1"));

        assertThat(step.command()).containsExactly("ip", "netns", "exec", "js-a1", "sh", "-ec",
                TopologyCommands.SYSCTL_SCRIPT, "sh", "net/ipv4/ip_forward", "1");
    }

    private int indexOf(java.util.function.Predicate<String> predicate) {
        for (int i = 0; i < commands.size(); i++) {
            if (predicate.test(commands.get(i))) {
                return i;
            }
        }
        return Integer.MAX_VALUE;
    }
}
