package io.jetstream.kafka.relay.datapath;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.RouteSpec;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.routing.RouteChooser;
import io.jetstream.kafka.relay.routing.RouteLabels;
import io.jetstream.kafka.relay.server.DataPipelineContext;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of one relay's data path: it builds the collaborators every connection
 * shares and hands each handler and link exactly the ones it uses, through its constructor. None of
 * them reaches back here.
 *
 * <pre>
 *  Drain ........................ whether new frames and peers are taken
 *  BufferBudgets ................ the relay's and each connection's buffer budget (reserve / release)
 *  AckPath ...................... pending frames, ack timeouts, completion (uses RouteChooser)
 *  NextHops -> NextHopLink ...... next-hop connections (ACKs and losses go to AckPath)
 *  Subscribers .................. subscriptions at the egress
 *  Router ....................... where a frame goes (RouteChooser, NextHops, Subscribers, AckPath)
 *  RoleHandlers ................. UpstreamHandler / SubscriberHandler for an accepted peer
 * </pre>
 *
 * <p>Lifecycle: {@link #start} opens the next-hop connections and the periodic traffic report;
 * {@link #close} nacks what is still pending and stops everything. Thread-safe.
 */
final class DataPath {

    private static final Logger log = LoggerFactory.getLogger(DataPath.class);

    private final RelayConfig config;
    private final EventLoopGroup eventLoops;
    private final Drain drain;
    private final AckPath acks;
    private final NextHops nextHops;
    private final RoleHandlers roles;
    private final HandshakeRefusals refusals;
    private final RelayMetrics metrics;
    private final Clock clock;
    private final AtomicBoolean closed = new AtomicBoolean();
    private ScheduledFuture<?> reporter;

    DataPath(DataPipelineContext context, RouteChooser chooser) {
        this.config = context.config();
        this.metrics = context.metrics();
        this.clock = context.clock();
        this.eventLoops = context.eventLoops().orElse(null);
        Waiters roomWaiters = new Waiters();
        this.drain = new Drain(context.health(), config.relayId(), context.relayBuffer());
        BufferBudgets budgets = new BufferBudgets(context.relayBuffer(), roomWaiters);
        this.acks = new AckPath(config.relayId(), config.ackTimeout(), metrics, chooser, roomWaiters, clock);
        this.nextHops = new NextHops(context.peerConnector(), config, metrics, acks);
        Subscribers subscribers = new Subscribers(java.time.Clock.systemUTC(), config.subscribeEpochMaxAhead());
        Router router = new Router(config, metrics, chooser, new RouteLabels(metrics), nextHops, subscribers, acks,
                roomWaiters, clock);
        this.roles = new RoleHandlers(config, metrics, drain, router, budgets, subscribers, acks);
        this.refusals = new HandshakeRefusals(metrics, clock);
    }

    /** Opens the connections to every configured route's first hop, and the periodic metrics report. */
    void start() {
        if (eventLoops == null) {
            return;
        }
        for (StreamSpec stream : config.streams().values()) {
            for (String destination : config.destinations()) {
                for (RouteSpec route : config.routes(destination)) {
                    route.nextHop().ifPresent(hop -> nextHops.link(hop, stream, eventLoops));
                }
            }
        }
        long intervalNs = config.heartbeatInterval().toNanos();
        reporter = eventLoops.next().scheduleAtFixedRate(
                () -> nextHops.all().forEach(NextHopLink::reportTraffic), intervalNs, intervalNs, TimeUnit.NANOSECONDS);
    }

    /** The first handler of an accepted connection, counting its bytes with {@code traffic}. */
    HandshakeHandler handshake(TrafficCounter traffic) {
        return new HandshakeHandler(config, metrics, refusals, drain, roles, traffic, clock);
    }

    /**
     * Stops the data path: every frame still pending is nacked upstream (its sender re-sends it on
     * another route at once instead of waiting for a timeout), next-hop connections close, timers stop.
     */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long startNs = clock.nanoTime();
        drain.stop();
        int abandoned = acks.abandonAll();
        if (reporter != null) {
            reporter.cancel(false);
        }
        nextHops.close();
        acks.stop();
        log.info("Relay {} data path closed in {} ms ({} frames still in flight were nacked)", config.relayId(),
                TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNs), abandoned);
    }
}
