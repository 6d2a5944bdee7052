package io.jetstream.kafka.relay.server;

import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.ssl.SslContext;

/**
 * Builds the pipeline of each accepted data connection, and nothing else:
 *
 * <pre>
 *  [tls] -> idle -> flush-consolidation -> connection-role -> (DataPipelineFactory handlers) -> unhandled
 * </pre>
 *
 * See {@link TransportPipeline} for the transport handlers and {@link DataPipelineFactory} for
 * what the data-path handlers may rely on. The channel joins the server's channel group, so that
 * draining and shutdown reach it; a connection accepted while the server is already draining, or
 * refused by the {@link HandshakeAdmission} (too many connections in their handshake), is closed at
 * once. An admitted connection has {@code handshake.timeout.ms} to authenticate.
 */
public final class RelayServerInitializer extends ChannelInitializer<Channel> {

    /** Name of the catch-all handler; data-path handlers added after initialisation go before it. */
    public static final String UNHANDLED = TransportPipeline.UNHANDLED;

    private final Optional<SslContext> serverSsl;
    private final TransportPipeline transport;
    private final DataPipelineFactory dataPipeline;
    private final DataPipelineContext context;
    private final ChannelGroup channels;
    private final BooleanSupplier accepting;
    private final HandshakeAdmission admission;

    RelayServerInitializer(Optional<SslContext> serverSsl, TransportPipeline transport, DataPipelineFactory dataPipeline,
                           DataPipelineContext context, ChannelGroup channels, BooleanSupplier accepting,
                           HandshakeAdmission admission) {
        this.serverSsl = Objects.requireNonNull(serverSsl, "serverSsl");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.dataPipeline = Objects.requireNonNull(dataPipeline, "dataPipeline");
        this.context = Objects.requireNonNull(context, "context");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.accepting = Objects.requireNonNull(accepting, "accepting");
        this.admission = Objects.requireNonNull(admission, "admission");
    }

    @Override
    protected void initChannel(Channel ch) throws Exception {
        channels.add(ch);
        if (!accepting.getAsBoolean()) {
            // Accepted in the instant between "stop accepting" and the listener's close.
            ch.close();
            return;
        }
        if (!admission.admit(ch)) {
            // Too many connections in their handshake (from this address): refused before TLS or any read.
            ch.close();
            return;
        }
        transport.addHead(ch, serverSsl.map(ssl -> ssl.newHandler(ch.alloc())).orElse(null));
        dataPipeline.initChannel(ch, context);
        transport.addTail(ch);
    }
}
