package io.jetstream.kafka.connect.common.relay;

import io.jetstream.kafka.connect.common.config.RelayClientConfigs;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.PeerRole;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.wire.FrameLength;
import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.transport.ClientTls;
import io.jetstream.kafka.transport.ReloadingTlsFiles;
import io.jetstream.kafka.transport.TlsFiles;
import io.jetstream.kafka.transport.PeerClient;
import io.jetstream.kafka.transport.PeerClientConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay connections of one connector task: one {@link PeerClient} per relay its
 * {@link RelayClientConfigs.Settings} list, all on one Netty event-loop thread of the task's own.
 * Both connectors make theirs here, so stream, token, TLS and timeouts reach the relays alike; what
 * differs is the {@link Profile}: the source-site task sends (and asks for receipts), the
 * destination-site task subscribes to its share.
 *
 * <p>Lifecycle: {@link #open} in the task's {@code start} (nothing connects yet), {@link #connect}
 * once per task, {@link #start} when the task is ready for frames, {@link #close} in its
 * {@code stop}. Threads: the listeners run on the event-loop thread.
 */
public final class RelayClients implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayClients.class);
    /**
     * The smallest frame limit a source-site task accepts from a relay's HELLO_OK: 1 MiB, room for a
     * record of a topic with Kafka's default {@code max.message.bytes}. A task sizes its largest
     * record to what its relays announce and, under {@code errors.tolerance=all}, skips larger ones:
     * a relay, or whoever answers at a relay's address, announcing less is refused and
     * retried, so that no record is skipped on a claim below this.
     */
    public static final int SENDER_MIN_PEER_FRAME_BYTES = 1024 * 1024;
    /** How long {@link #close} lets the event loop finish what it runs. */
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

    /**
     * What a task is to its relays: the {@link PeerRole} its clients declare in HELLO, and what goes
     * with it beyond the shared settings (thread names, receipts, the subscription).
     */
    public record Profile(PeerRole peerRole, String threadPrefix, boolean receipts, SubscribeFrame subscription) {

        public Profile {
            Objects.requireNonNull(peerRole, "peerRole");
            Objects.requireNonNull(threadPrefix, "threadPrefix");
        }

        /** A source-site task: sends batches and asks for receipts from the egress relay. */
        public static Profile sender() {
            return new Profile(PeerRole.SENDER, "jetstream-source-", true, null);
        }

        /** A destination-site task: subscribes to its share of the stream. */
        public static Profile subscriber(SubscribeFrame subscription) {
            return new Profile(PeerRole.SUBSCRIBER, "jetstream-sink-", false,
                    Objects.requireNonNull(subscription, "subscription"));
        }
    }

    /**
     * One relay's connection as a task sees it: the listener of its client, told the client once it
     * is made (the listener exists first, since the client needs it).
     */
    public interface Connection extends PeerClient.Listener {
        void bind(PeerClient client);
    }

    private final RelayClientConfigs.Settings settings;
    private final Profile profile;
    private final String nodeId;
    private final SslContext ssl;
    private final EventLoopGroup group;
    private final List<PeerClient> clients = new ArrayList<>();

    private RelayClients(RelayClientConfigs.Settings settings, Profile profile, String nodeId, SslContext ssl,
                         EventLoopGroup group) {
        this.settings = settings;
        this.profile = profile;
        this.nodeId = nodeId;
        this.ssl = ssl;
        this.group = group;
    }

    /**
     * The task's relay clients, not connected yet: builds the TLS context the settings ask for
     * (which follows its files: a renewed certificate is used from the next connection on) and the
     * task's event-loop thread.
     *
     * @throws IllegalArgumentException if the TLS files cannot be used (the message names them)
     */
    public static RelayClients open(RelayClientConfigs.Settings settings, Profile profile, String nodeId) {
        SslContext ssl = settings.tls()
                ? ClientTls.sslContext(TlsFiles.of(settings.caFile(), settings.certFile(), settings.keyFile()),
                        settings.tlsReloadInterval(), Clock.system(), ReloadingTlsFiles.Listener.NONE)
                : null;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory(profile.threadPrefix() + nodeId, true), NioIoHandler.newFactory());
        return new RelayClients(settings, profile, nodeId, ssl, group);
    }

    /**
     * A node id unique to this task instance: the connector's name and task number, and a salt that
     * tells two instances of the same task apart at the relays.
     */
    public static String nodeId(String connectorName, int taskId) {
        return connectorName + "-" + taskId + "-" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
    }

    /** The client configuration for one of the relays: the shared settings plus this task's role. */
    public PeerClientConfig config(InetSocketAddress relay) {
        return PeerClientConfig.builder(relay, profile.peerRole(), nodeId, settings.streamId(), settings.token().value())
                .sslContext(ssl)
                .connectTimeout(settings.connectTimeout())
                .heartbeatInterval(settings.heartbeatInterval())
                .reconnectBackoff(settings.reconnectBackoff(), settings.reconnectBackoffMax())
                .receipts(profile.receipts())
                .subscription(profile.subscription())
                .minPeerMaxFrameBytes(profile.peerRole() == PeerRole.SENDER ? SENDER_MIN_PEER_FRAME_BYTES
                        : FrameLength.MIN_MAX_FRAME_BYTES)
                .build();
    }

    /**
     * Makes one client per relay, each with the connection {@code connectionFor} makes for its
     * address; none connects before {@link #start}.
     *
     * @param macsNeeded         whether the task needs end-to-end MACs on the way (an integrity key)
     * @param withoutMacsWarning logged (with the relay's address for {@code {}}) when a relay does
     *                           not carry them though {@code macsNeeded}
     * @return the connections, in the order of the settings' relays
     */
    public <C extends Connection> List<C> connect(Function<InetSocketAddress, C> connectionFor, boolean macsNeeded,
                                                  String withoutMacsWarning) {
        List<C> connections = new ArrayList<>(settings.relays().size());
        for (InetSocketAddress relay : settings.relays()) {
            C connection = connectionFor.apply(relay);
            PeerClient client = new PeerClient(config(relay), group,
                    new WarningWithoutMacs(connection, macsNeeded, withoutMacsWarning));
            connection.bind(client);
            clients.add(client);
            connections.add(connection);
        }
        return connections;
    }

    /** Starts connecting every client (and reconnecting after each loss, until {@link #close}). */
    public void start() {
        clients.forEach(PeerClient::start);
    }

    /** The clients, in the order of the settings' relays. */
    public List<PeerClient> clients() {
        return List.copyOf(clients);
    }

    /** The stream the clients serve (the settings' stream id). */
    public String streamId() {
        return settings.streamId();
    }

    /** The clients' event-loop thread, for a timer that reschedules itself (one thread: tasks run in order). */
    public io.netty.util.concurrent.EventExecutor timerExecutor() {
        return group.next();
    }

    /** Closes every client (a failure is logged, the others still close), then stops the event loop. */
    @Override
    public void close() {
        for (PeerClient client : clients) {
            try {
                client.close();
            } catch (RuntimeException e) {
                log.warn("Closing the relay client {} failed", client.remote(), e);
            }
        }
        group.shutdownGracefully(0, SHUTDOWN_TIMEOUT.toSeconds(), TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Passes every event on; warns when a relay completes its handshake without MACs though they are needed. */
    private record WarningWithoutMacs(PeerClient.Listener listener, boolean macsNeeded, String warning)
            implements PeerClient.Listener {

        @Override
        public void onReady(PeerClient client) {
            if (macsNeeded && !client.macs()) {
                log.warn(warning, client.remote());
            }
            listener.onReady(client);
        }

        @Override
        public void onFrame(PeerClient client, Frame frame) {
            listener.onFrame(client, frame);
        }

        @Override
        public void onDisconnected(PeerClient client, Throwable cause) {
            listener.onDisconnected(client, cause);
        }

        @Override
        public void onWritabilityChanged(PeerClient client, boolean writable) {
            listener.onWritabilityChanged(client, writable);
        }
    }
}
