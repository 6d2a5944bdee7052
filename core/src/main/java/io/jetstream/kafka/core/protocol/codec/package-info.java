/**
 * Frame encoding on Netty {@code ByteBuf}s: {@link io.jetstream.kafka.core.protocol.codec.FrameCodec}
 * is the entry point, one package-private codec per frame type draws and implements its layout.
 *
 * <p>Pure {@code ByteBuf} code (netty-buffer only, no channel or pipeline types): the relay wraps
 * {@code FrameCodec.tryDecode} in a {@code ByteToMessageDecoder} and {@code FrameCodec.encode} in an
 * outbound handler.
 */
package io.jetstream.kafka.core.protocol.codec;
