package io.jetstream.kafka.relay.datapath;

import java.util.Objects;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.ProtocolVersion;
import io.jetstream.kafka.core.wire.ProtocolException;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.routing.RouteChooser;
import io.jetstream.kafka.relay.routing.SchedulingRouteChooser;
import io.jetstream.kafka.relay.server.DataPipelineContext;
import io.jetstream.kafka.relay.server.DataPipelineFactory;
import io.jetstream.kafka.transport.FrameDecoderHandler;
import io.jetstream.kafka.transport.FrameEncoderHandler;
import io.jetstream.kafka.transport.TransportErrorListener;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import java.util.function.BiFunction;

/**
 * The relay's data path: the JetStream protocol (see {@code docs/protocol.md}) on every accepted
 * data connection.
 *
 * <pre>
 *  (transport) -> traffic -> frame-decoder -> frame-encoder -> handshake -> (unhandled)
 * </pre>
 * After HELLO the handshake handler replaces itself with {@code heartbeat} and the role's handler.
 * State shared by all connections lives in one {@link DataPath}, created by {@link #start}.
 */
public final class ProtocolDataPipelineFactory implements DataPipelineFactory {

    static final String FRAME_DECODER = "frame-decoder";

    private final BiFunction<RelayConfig, Clock, RouteChooser> chooserFactory;
    private volatile DataPath path;
    private volatile FrameEncoderHandler encoder;

    /** With the route chooser the configuration asks for ({@code routing.policy}). */
    public ProtocolDataPipelineFactory() {
        this(SchedulingRouteChooser::forConfig);
    }

    /** @param chooserFactory builds the route chooser from the relay's configuration and clock */
    public ProtocolDataPipelineFactory(BiFunction<RelayConfig, Clock, RouteChooser> chooserFactory) {
        this.chooserFactory = Objects.requireNonNull(chooserFactory, "chooserFactory");
    }

    @Override
    public synchronized void start(DataPipelineContext context) {
        if (path != null) {
            throw new IllegalStateException("the data path is started once");
        }
        RouteChooser chooser = chooserFactory.apply(context.config(), context.clock());
        if (chooser instanceof SchedulingRouteChooser scheduling) {
            context.metrics().beforeScrape(() -> scheduling.exportTo(context.metrics()));
        }
        DataPath created = new DataPath(context, chooser);
        encoder = new FrameEncoderHandler(context.config().frameMaxBytes());
        path = created;
        created.start();
    }

    @Override
    public void initChannel(Channel channel, DataPipelineContext context) {
        DataPath current = path;
        if (current == null) {
            // Handler tests build channels without a server: start on first use.
            synchronized (this) {
                if (path == null) {
                    start(context);
                }
                current = path;
            }
        }
        RelayMetrics metrics = context.metrics();
        TrafficCounter traffic = new TrafficCounter();
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("traffic", traffic);
        // A HELLO-sized limit until the handshake succeeds: a stranger's length prefix is refused
        // long before the full frame.max.bytes (HandshakeHandler raises it).
        pipeline.addLast(FRAME_DECODER,
                new FrameDecoderHandler(context.config().handshakeFrameMaxBytes(), errorCounter(metrics), true));
        pipeline.addLast("frame-encoder", encoder);
        pipeline.addLast("handshake", current.handshake(traffic));
    }

    private static TransportErrorListener errorCounter(RelayMetrics metrics) {
        return (channel, error) -> metrics.errors(kindOf(error)).inc();
    }

    static ErrorKind kindOf(ProtocolException error) {
        return switch (error.kind()) {
            case FRAME_TOO_LARGE -> ErrorKind.FRAME_TOO_LARGE;
            case UNSUPPORTED_VERSION -> ErrorKind.UNSUPPORTED_VERSION;
            default -> ErrorKind.MALFORMED_FRAME;
        };
    }

    @Override
    public void close() {
        DataPath current = path;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public String description() {
        return "JetStream protocol v" + ProtocolVersion.CURRENT;
    }
}
