package io.jetstream.kafka.relay.server;

import java.util.concurrent.atomic.AtomicBoolean;

import io.jetstream.kafka.relay.metrics.ErrorKind;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data path of a relay built without its frame handlers: every data connection is closed as
 * soon as it is accepted and counted as {@code data_path_unavailable}. It is not a data path; it
 * keeps a relay started from a build without one honest (health and metrics work, data
 * connections fail fast instead of hanging until a timeout).
 */
public final class RefusingDataPipelineFactory implements DataPipelineFactory {

    private static final Logger log = LoggerFactory.getLogger(RefusingDataPipelineFactory.class);

    private final AtomicBoolean warned = new AtomicBoolean();

    @Override
    public void initChannel(Channel channel, DataPipelineContext context) {
        channel.pipeline().addLast("refuse", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                context.metrics().errors(ErrorKind.DATA_PATH_UNAVAILABLE).inc();
                if (warned.compareAndSet(false, true)) {
                    log.warn("Refusing data connection from {}: this relay has no data-path handlers installed"
                            + " (further refusals are logged at DEBUG)", ctx.channel().remoteAddress());
                } else {
                    log.debug("Refusing data connection from {}", ctx.channel().remoteAddress());
                }
                ctx.close();
            }
        });
    }

    @Override
    public String description() {
        return "none (data connections are refused)";
    }
}
