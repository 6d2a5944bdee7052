/**
 * A user-space WAN link emulator for tests, the demo and the benchmarks: {@link
 * io.jetstream.kafka.testkit.link.LinkEmulator} is a TCP proxy on loopback that caps the rate of each direction
 * (shared by all connections of the link), adds a one-way propagation delay, and can be cut and restored at run time.
 * It stands in for {@code tc netem}, which these machines do not have.
 */
package io.jetstream.kafka.testkit.link;
