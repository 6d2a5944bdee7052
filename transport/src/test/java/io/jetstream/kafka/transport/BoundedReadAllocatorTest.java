package io.jetstream.kafka.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.jetstream.kafka.core.testing.LeakChecks;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** One read() request on a connection with AUTO_READ off reads several full buffers, never more than the bound. */
class BoundedReadAllocatorTest {

    @AfterAll
    static void noLeaks() {
        LeakChecks.assertNoLeaks();
    }

    @Test
    void oneRequestReadsUpToItsBoundAndNoMore() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        List<Integer> bytesPerRequest = new CopyOnWriteArrayList<>();
        List<Channel> accepted = new CopyOnWriteArrayList<>();
        try {
            BoundedReadAllocator allocator = new BoundedReadAllocator(1024, 1024, 1024, 4);
            Channel server = new ServerBootstrap().group(group)
                    .channel(io.netty.channel.socket.nio.NioServerSocketChannel.class)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.RECVBUF_ALLOCATOR, allocator)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        private int bytes;

                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            accepted.add(ctx.channel());
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            bytes += ((ByteBuf) msg).readableBytes();
                            ((ByteBuf) msg).release();
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            bytesPerRequest.add(bytes);
                            bytes = 0;
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            try (Socket client = new Socket()) {
                client.connect((InetSocketAddress) server.localAddress());
                OutputStream out = client.getOutputStream();
                out.write(new byte[64 * 1024]);
                out.flush();
                await("accepted").atMost(Duration.ofSeconds(10)).until(() -> !accepted.isEmpty());
                // The bytes are in the server's socket before it asks for a single read.
                accepted.get(0).read();
                await("the first request").atMost(Duration.ofSeconds(10)).until(() -> !bytesPerRequest.isEmpty());
            }
            assertThat(bytesPerRequest.get(0)).as("several buffers in one request, bounded")
                    .isGreaterThan(1024).isLessThanOrEqualTo((int) allocator.maxBytesPerRequest());
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void refusesZeroReads() {
        assertThatThrownBy(() -> new BoundedReadAllocator(64, 64, 64, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
