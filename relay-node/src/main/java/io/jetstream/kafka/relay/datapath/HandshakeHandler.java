package io.jetstream.kafka.relay.datapath;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;

import javax.net.ssl.SSLPeerUnverifiedException;

import io.jetstream.kafka.core.model.Clock;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.ProtocolVersion;
import io.jetstream.kafka.relay.config.PeerIdentity;
import io.jetstream.kafka.relay.config.RelayConfig;
import io.jetstream.kafka.relay.config.StreamSpec;
import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.jetstream.kafka.relay.metrics.PeerMetrics;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.jetstream.kafka.relay.server.ConnectionCounter;
import io.jetstream.kafka.relay.server.DrainStartedEvent;
import io.jetstream.kafka.transport.FrameDecoderHandler;
import io.jetstream.kafka.transport.FrameEncoderHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first frame of an accepted connection must be a HELLO that passes, in order:
 * <ol>
 *   <li>version (checked by the frame decoder before any other field: {@code ERROR(UNSUPPORTED_VERSION)}
 *       naming the supported versions, counted {@code unsupported_version});</li>
 *   <li>stream listed in {@code streams} (counted {@code unknown_stream});</li>
 *   <li>token equal to the one that grants the role on the stream, compared in constant time
 *       (counted {@code authentication_failed});</li>
 *   <li>for a role bound to certificate identities ({@code streams.<id>.<role>.identities}), a verified
 *       TLS client certificate that carries one of them (counted {@code authentication_failed});</li>
 *   <li>relay not draining ({@code ERROR(SHUTTING_DOWN)}: the peer goes to another relay).</li>
 * </ol>
 * The three authentication checks answer alike: {@code ERROR(AUTHENTICATION_FAILED)} with one fixed
 * message ({@link HandshakeRefusals}), so an unauthenticated peer cannot tell an unknown stream from
 * a wrong token, nor learn which roles have a token of their own; the detail goes to the relay's log.
 * Then it answers HELLO_OK (this relay's id and {@code frame.max.bytes}, and the MAC fields when the peer
 * offers them: from then on BATCH, TOPIC_METADATA and ACK carry end-to-end MACs both ways on this
 * connection, which the relay passes on unchanged), records the peer's role,
 * and replaces itself with the heartbeat handler and the role's handler ({@link UpstreamHandler}
 * for SENDER and RELAY, {@link SubscriberHandler} for SUBSCRIBER). Anything before HELLO is
 * {@code ERROR(UNEXPECTED_FRAME)}, counted {@code unexpected_frame}, and the connection closes: an
 * unauthenticated peer can make the relay do nothing else. Until the HELLO is accepted the frame
 * decoder takes frames of at most {@code handshake.frame.max.bytes}; accepting raises its limit to
 * {@code frame.max.bytes}. A peer that does not complete the handshake within
 * {@code handshake.timeout.ms} is closed by the server ({@code HandshakeAdmission}).
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(HandshakeHandler.class);

    private final RelayConfig config;
    private final RelayMetrics metrics;
    private final HandshakeRefusals refusals;
    private final Drain drain;
    private final RoleHandlers roles;
    private final TrafficCounter traffic;
    private final Clock clock;
    private boolean rejected;

    /**
     * @param refusals answers the HELLOs that do not authenticate (shared by the relay's connections)
     * @param drain   a draining relay turns peers away
     * @param roles   makes the handler of an accepted peer's role
     * @param traffic the connection's byte counter, bound to the peer once it is known
     * @param clock   the relay's clock, for the heartbeats of an accepted peer
     */
    HandshakeHandler(RelayConfig config, RelayMetrics metrics, HandshakeRefusals refusals, Drain drain,
                     RoleHandlers roles, TrafficCounter traffic, Clock clock) {
        this.config = config;
        this.metrics = metrics;
        this.refusals = refusals;
        this.drain = drain;
        this.roles = roles;
        this.traffic = traffic;
        this.clock = clock;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.read();
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HelloFrame hello)) {
            String what = msg instanceof Frame f ? f.type().toString()
                    : msg.getClass().getSimpleName();
            ReferenceCountUtil.release(msg);
            reject(ctx, ErrorKind.UNEXPECTED_FRAME, ErrorCode.UNEXPECTED_FRAME, "expected HELLO first, got " + what);
            return;
        }
        if (!ProtocolVersion.isSupported(hello.version())) {
            reject(ctx, ErrorKind.UNSUPPORTED_VERSION, ErrorCode.UNSUPPORTED_VERSION, "protocol version "
                    + hello.version() + " is not supported (supported: " + ProtocolVersion.supportedRange() + ")");
            return;
        }
        Optional<StreamSpec> stream = config.stream(hello.streamId());
        if (stream.isEmpty()) {
            refuse(ctx, ErrorKind.UNKNOWN_STREAM, hello, "the stream is not served here");
            return;
        }
        if (!stream.get().tokenMatches(hello.role(), hello.authToken())) {
            refuse(ctx, ErrorKind.AUTHENTICATION_FAILED, hello, "wrong token for the role ("
                    + (stream.get().hasOwnToken(hello.role()) ? "it has a token of its own" : "the stream's token grants it")
                    + ")");
            return;
        }
        if (stream.get().bindsCertificates(hello.role())) {
            X509Certificate certificate = peerCertificate(ctx);
            if (!stream.get().certificateAllowed(hello.role(), certificate)) {
                refuse(ctx, ErrorKind.AUTHENTICATION_FAILED, hello, "certificate "
                        + (certificate == null ? "(none)" : "'" + PeerIdentity.describe(certificate) + "'")
                        + " names none of the role's identities");
                return;
            }
        }
        if (drain.draining()) {
            // Not an error of the peer's: no count, just the reason, so it goes to another relay.
            rejected = true;
            ctx.writeAndFlush(ErrorFrame.of(ErrorCode.SHUTTING_DOWN, "relay " + config.relayId()
                    + " is shutting down")).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        accept(ctx, hello, stream.get());
    }

    private void accept(ChannelHandlerContext ctx, HelloFrame hello, StreamSpec stream) {
        // The peer's series are held while this connection is open (bounded; see RelayMetrics.peer).
        PeerMetrics peer = metrics.peer(hello.nodeId());
        ctx.channel().closeFuture().addListener(f -> metrics.release(peer));
        Session session = new Session(hello.nodeId(), hello.role(), stream.id(), peer, hello.wantsReceipts());
        traffic.bind(session.metrics());
        // Authenticated: full-size frames from the next one on, and no more handshake limits.
        FrameDecoderHandler decoder = (FrameDecoderHandler) ctx.pipeline().get(ProtocolDataPipelineFactory.FRAME_DECODER);
        HelloOkFrame ok = HelloOkFrame.answering(hello, config.relayId(), config.frameMaxBytes());
        if (decoder != null) {
            decoder.maxFrameBytes(config.frameMaxBytes());
            decoder.macs(ok.macs());
        }
        if (ok.macs()) {
            FrameEncoderHandler.useMacs(ctx.channel());
        }
        ConnectionCounter.assign(ctx.channel(), RoleLabel.of(hello.role()), metrics);
        ctx.writeAndFlush(ok);
        log.debug("Accepted {} on {}", session, ctx.channel());

        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.addAfter(ctx.name(), "heartbeat",
                new HeartbeatHandler(session, metrics, config.heartbeatInterval().toNanos(), clock));
        pipeline.addAfter("heartbeat", "role", roles.handlerFor(session, stream));
        pipeline.remove(this);
    }

    /** The leaf certificate the peer proved in the TLS handshake, or null (plaintext, or none sent). */
    private static X509Certificate peerCertificate(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? leaf : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    private void reject(ChannelHandlerContext ctx, ErrorKind kind, ErrorCode code, String message) {
        rejected = true;
        Rejections.reject(ctx, metrics, kind, code, message);
    }

    private void refuse(ChannelHandlerContext ctx, ErrorKind kind, HelloFrame hello, String detail) {
        rejected = true;
        refusals.refuse(ctx, kind, hello, detail);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (!rejected) {
            ctx.read();
        }
        super.channelReadComplete(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (Rejections.isReaderIdle(evt) && !rejected) {
            rejected = true;
            Rejections.idle(ctx, metrics, config.idleTimeout());
            return;
        }
        if (evt instanceof DrainStartedEvent) {
            drain.start();
        }
        super.userEventTriggered(ctx, evt);
    }
}
