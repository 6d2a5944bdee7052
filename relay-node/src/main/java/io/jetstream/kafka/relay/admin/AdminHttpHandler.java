package io.jetstream.kafka.relay.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.kafka.relay.metrics.RelayMetrics;
import io.jetstream.kafka.relay.metrics.RoleLabel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the admin endpoints:
 *
 * <ul>
 *   <li>{@code GET /health}: 200 with {@code {"status":"UP",...}} while serving ({@code DEGRADED}
 *       while serving under direct-memory pressure), 503 with {@code STARTING}, {@code DRAINING} or
 *       {@code DOWN} otherwise (so a load balancer or orchestrator stops sending traffic as soon as a
 *       drain begins);</li>
 *   <li>{@code GET /metrics}: the Prometheus text exposition, format 0.0.4;</li>
 *   <li>any other path: 404; any other method: 405 with {@code Allow: GET}; a request that did
 *       not decode: 400.</li>
 * </ul>
 * Stateless and shared by all admin connections; runs on their event loops.
 */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    static final String HEALTH_PATH = "/health";
    static final String METRICS_PATH = "/metrics";

    private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_TYPE = "application/json; charset=utf-8";
    private static final String TEXT_TYPE = "text/plain; charset=utf-8";

    private final RelayHealth health;
    private final RelayMetrics metrics;

    AdminHttpHandler(RelayHealth health, RelayMetrics metrics) {
        this.health = Objects.requireNonNull(health, "health");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
        FullHttpResponse response;
        if (!request.decoderResult().isSuccess()) {
            response = text(ctx, HttpResponseStatus.BAD_REQUEST, "Bad request\n");
        } else if (!HttpMethod.GET.equals(request.method())) {
            response = text(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "Only GET is supported\n");
            response.headers().set(HttpHeaderNames.ALLOW, HttpMethod.GET.name());
        } else {
            String path = new QueryStringDecoder(request.uri()).path();
            response = switch (path) {
                case HEALTH_PATH -> health(ctx);
                case METRICS_PATH -> metrics(ctx);
                default -> text(ctx, HttpResponseStatus.NOT_FOUND,
                        "Not found. Endpoints: " + HEALTH_PATH + ", " + METRICS_PATH + "\n");
            };
        }
        send(ctx, request, response);
    }

    private FullHttpResponse health(ChannelHandlerContext ctx) throws JsonProcessingException {
        RelayHealth.Reported status = health.reported();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status.name());
        body.put("relayId", health.relayId());
        body.put("uptimeMs", health.uptimeMs());
        long open = 0;
        for (RoleLabel role : RoleLabel.values()) {
            open += (long) metrics.connections(role).get();
        }
        body.put("dataConnections", open);
        body.put("inflightBatches", (long) metrics.inFlightBatches().get());
        body.put("bufferedBytes", (long) metrics.bufferedBytes().get());
        body.put("directMemoryUsedBytes", health.memory().usedBytes());
        body.put("directMemoryMaxBytes", health.memory().maxBytes());
        HttpResponseStatus code = status.serving() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE;
        return response(ctx, code, JSON_TYPE, JSON.writeValueAsString(body) + "\n");
    }

    private FullHttpResponse metrics(ChannelHandlerContext ctx) {
        return response(ctx, HttpResponseStatus.OK, RelayMetrics.CONTENT_TYPE, metrics.scrape());
    }

    private static FullHttpResponse text(ChannelHandlerContext ctx, HttpResponseStatus status, String body) {
        return response(ctx, status, TEXT_TYPE, body);
    }

    private static FullHttpResponse response(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType,
                                             String body) {
        ByteBuf content = ByteBufUtil.writeUtf8(ctx.alloc(), body);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        return response;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
        boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
        if (keepAlive) {
            if (!request.protocolVersion().isKeepAliveDefault()) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("Closing admin connection {} after {}", ctx.channel(), cause.toString());
        ctx.close();
    }
}
