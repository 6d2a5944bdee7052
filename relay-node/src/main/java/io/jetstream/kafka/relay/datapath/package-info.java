/**
 * The relay's data path: the JetStream protocol handlers plugged into
 * {@link io.jetstream.kafka.relay.server.DataPipelineFactory}.
 *
 * <pre>
 *  accepted connection:  traffic -> frame-decoder -> frame-encoder -> handshake
 *                        then, after HELLO:  ... -> heartbeat -> upstream    (SENDER, RELAY)
 *                                            ... -> heartbeat -> subscriber  (SUBSCRIBER)
 *
 *  upstream --reserve (BufferBudgets)--> Router --(ingress: RouteChooser; intermediate: path[hop+1])--> NextHopLink
 *                                          \--(egress: share owner)--> SubscriberLink
 *  AckPath: PendingTable (originNodeId, id) -> upstream, downstreams, route, reservation, sent time;
 *           ACK/NACK back hop by hop, completion releases the reservation exactly once
 * </pre>
 *
 * {@code DataPath} is the composition root: it builds the shared collaborators ({@code Drain},
 * {@code BufferBudgets}, {@code AckPath}, {@code NextHops}, {@code Subscribers}, {@code Router})
 * and gives each handler and link, through its constructor, exactly the ones it uses; none reaches
 * back into it. They are touched from every event loop: the pending table and registries are
 * concurrent maps, budgets are atomic, completion of a pending frame and release of a reservation
 * are compare-and-sets, and writes to another loop's channel go through Netty's thread-safe
 * {@code Channel.write}. Per-connection state stays on the connection's loop. Route choice lives in
 * {@link io.jetstream.kafka.relay.routing}.
 */
package io.jetstream.kafka.relay.datapath;
