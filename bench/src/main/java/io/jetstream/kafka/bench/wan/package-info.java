/**
 * A kernel-level two-site WAN for benchmarks: {@link io.jetstream.kafka.bench.wan.WanNetwork} builds one network
 * namespace per host, an uncapped LAN bridge per site (reachable from the root namespace), a {@code tc tbf}-capped WAN
 * uplink per host, and a core namespace that routes every cross-site packet through a TUN delay line (a small C
 * program compiled at run time, since the kernel has no {@code netem}).
 * {@link io.jetstream.kafka.bench.wan.WanNetworkMain} brings one up or down by hand. Needs root; see
 * {@link io.jetstream.kafka.bench.wan.WanNetwork#unavailableReason()}. The portable user-space alternative, for
 * tests on loopback, is {@link io.jetstream.kafka.testkit.link.LinkEmulator}.
 */
package io.jetstream.kafka.bench.wan;
