package io.jetstream.kafka.transport.testing;




import static org.awaitility.Awaitility.await;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.jetstream.kafka.core.protocol.AckFrame;
import io.jetstream.kafka.core.protocol.BatchFrame;
import io.jetstream.kafka.core.protocol.ErrorCode;
import io.jetstream.kafka.core.protocol.ErrorFrame;
import io.jetstream.kafka.core.protocol.Frame;
import io.jetstream.kafka.core.protocol.FrameMac;
import io.jetstream.kafka.core.protocol.HelloFrame;
import io.jetstream.kafka.core.protocol.HelloOkFrame;
import io.jetstream.kafka.core.protocol.PingFrame;
import io.jetstream.kafka.core.protocol.SubscribeFrame;
import io.jetstream.kafka.core.protocol.SubscribeOkFrame;
import io.jetstream.kafka.transport.FrameDecoderHandler;
import io.jetstream.kafka.transport.FrameEncoderHandler;
import io.jetstream.kafka.transport.TransportErrorCounter;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * TEST ONLY: a minimal relay stand-in speaking the frame protocol, for the client's tests. Its
 * behaviour at handshake is set by {@link Mode}; it acknowledges every BATCH and records what it
 * saw. It can be stopped and started again on the same port.
 */
public final class FakeRelay implements AutoCloseable {

    /** How the fake answers a HELLO. */
    public enum Mode {
        /** HELLO_OK, SUBSCRIBE_OK, PONG, ACK: a healthy relay. */
        ACCEPT,
        /** ERROR(AUTHENTICATION_FAILED), then close. */
        REJECT,
        /** Close at once without a word. */
        HANG_UP,
        /** HELLO_OK, then never a byte more (no PONG, no ACK): a relay that died silently. */
        SILENT_AFTER_HELLO,
        /** Reads but never answers, not even the HELLO. */
        MUTE
    }

    public final List<HelloFrame> hellos = new CopyOnWriteArrayList<>();
    public final List<SubscribeFrame> subscriptions = new CopyOnWriteArrayList<>();
    public final List<Long> acceptedAtNanos = new CopyOnWriteArrayList<>();
    public final List<Long> batchIds = new CopyOnWriteArrayList<>();
    /** The MAC of each batch received, in order. */
    public final List<FrameMac> batchMacs = new CopyOnWriteArrayList<>();
    /**
     * Whether the fake takes a client's offer of MAC fields (as relays built with them do); off, it
     * answers as a relay built before them. When on, its ACKs carry the batch's MAC back (a stand-in for
     * a destination's own).
     */
    public volatile boolean takesMacs;
    /** The frame limit announced in HELLO_OK. */
    public volatile int announcedMaxFrameBytes = 1 << 20;
    public final AtomicInteger pings = new AtomicInteger();
    public final TransportErrorCounter errors = new TransportErrorCounter();

    private final EventLoopGroup group;
    private final SslContext ssl;
    private final ChannelGroup channels = new DefaultChannelGroup("fake-relay", GlobalEventExecutor.INSTANCE);
    private volatile Mode mode;
    private Channel listener;

    public FakeRelay(EventLoopGroup group, Mode mode, SslContext serverSsl) {
        this.group = group;
        this.mode = mode;
        this.ssl = serverSsl;
    }

    public void mode(Mode newMode) {
        this.mode = newMode;
    }

    /**
     * Binds a free port on loopback, or {@code port} when it is not 0 (restarts). A restart on the
     * same port retries for a few seconds: a client reconnecting to that port meanwhile can be given
     * the very same port as its own local port (the port is in the ephemeral range) and hold it
     * briefly through a connection to itself, until its handshake fails.
     */
    public InetSocketAddress start(int port) throws InterruptedException {
        if (port == 0) {
            return bind(0);
        }
        return await("port " + port + " free for the restarted relay").atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).pollInSameThread()
                .ignoreExceptionsInstanceOf(BindException.class).until(() -> bind(port), Objects::nonNull);
    }

    private InetSocketAddress bind(int port) throws InterruptedException {
        listener = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        acceptedAtNanos.add(System.nanoTime());
                        if (mode == Mode.HANG_UP) {
                            ch.close();
                            return;
                        }
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast("decoder", new FrameDecoderHandler(1 << 20, errors, true));
                        ch.pipeline().addLast(new FrameEncoderHandler(1 << 20));
                        ch.pipeline().addLast(new Handler());
                    }
                })
                .bind("127.0.0.1", port).sync().channel();
        return (InetSocketAddress) listener.localAddress();
    }

    /** Closes the listener and every connection. */
    public void stop() {
        if (listener != null) {
            listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            listener = null;
        }
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Writes a frame to every open connection (each gets its own reference). */
    public void broadcast(Frame frame) {
        for (Channel ch : channels) {
            ch.writeAndFlush(ReferenceCountUtil.retain(frame));
        }
        ReferenceCountUtil.release(frame);
    }

    public int openConnections() {
        return (int) channels.stream().filter(Channel::isActive).count();
    }

    @Override
    public void close() {
        stop();
    }

    private final class Handler extends SimpleChannelInboundHandler<Frame> {
        private boolean silent;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            if (silent || mode == Mode.MUTE) {
                return;
            }
            if (frame instanceof HelloFrame hello) {
                hellos.add(hello);
                if (mode == Mode.REJECT) {
                    ctx.writeAndFlush(ErrorFrame.of(ErrorCode.AUTHENTICATION_FAILED, "bad token"))
                            .addListener(ChannelFutureListener.CLOSE);
                    return;
                }
                HelloOkFrame ok = takesMacs ? HelloOkFrame.answering(hello, "fake-relay", announcedMaxFrameBytes)
                        : HelloOkFrame.of("fake-relay", announcedMaxFrameBytes);
                if (ok.macs()) {
                    ((FrameDecoderHandler) ctx.pipeline().get("decoder")).macs(true);
                    FrameEncoderHandler.useMacs(ctx.channel());
                }
                ctx.writeAndFlush(ok);
                silent = mode == Mode.SILENT_AFTER_HELLO;
            } else if (frame instanceof SubscribeFrame subscribe) {
                subscriptions.add(subscribe);
                ctx.writeAndFlush(SubscribeOkFrame.of(subscribe));
            } else if (frame instanceof PingFrame ping) {
                pings.incrementAndGet();
                ctx.writeAndFlush(ping.pong());
            } else if (frame instanceof BatchFrame batch) {
                batchIds.add(batch.header().batchId());
                batchMacs.add(batch.header().mac());
                ctx.writeAndFlush(AckFrame.ok(batch.header()).withMac(batch.header().mac()));
            }
        }
    }
}
