/**
 * The relay's data path: the JetStream protocol handlers plugged into
 * {@link io.jetstream.kafka.relay.server.DataPipelineFactory}.
 *
 * <pre>
 *  accepted connection:  traffic -> frame-decoder -> frame-encoder -> handshake
 *                        then, after HELLO:  ... -> heartbeat -> upstream    (SENDER, RELAY)
 *                                            ... -> heartbeat -> subscriber  (SUBSCRIBER)
 *
 *  upstream --BATCH--> Router --(ingress: choose a route; intermediate: path[hop+1])--> NextHopLink (PeerClient, RELAY)
 *                         \--(egress: share owner)--> SubscriberLink
 *  PendingTable: (originNodeId, id) -> upstream, downstream, route, bytes, sent time; ACK/NACK back hop by hop
 * </pre>
 *
 * Shared state ({@link io.jetstream.kafka.relay.datapath.DataPath}) is touched from every event
 * loop: the pending table and registries are concurrent maps, budgets are atomic, completion of a
 * pending batch is a compare-and-set, and writes to another loop's channel go through Netty's
 * thread-safe {@code Channel.write}. Per-connection state stays on the connection's loop.
 */
package io.jetstream.kafka.relay.datapath;
