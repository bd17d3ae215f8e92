package io.vnpu.kube.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over unix domain sockets with JDK NIO ({@code java.net.UnixDomainSocketAddress}), so no
 * native epoll library is needed and the same jar runs on x86_64 and aarch64 Ascend hosts.
 *
 * <p>One instance owns one NIO event loop group, shared by every server and channel it builds;
 * {@link #close()} shuts the group down (gRPC never shuts down groups it was given). The channel
 * type and both event loop groups are always set explicitly: grpc-netty would otherwise pick epoll
 * groups whenever epoll happens to be on the classpath.
 *
 * <p>Buffers come from Netty's unpooled allocator: the peers here (kubelet, device plugin, DRA
 * driver) exchange a few small messages a second at most, and grpc-netty's default pooled allocator
 * keeps chunks of at least 2 MiB resident per arena for them (about 7 MiB of the node agent's RSS,
 * docs/benchmarks.md "Issue 29: node agent RSS").
 */
public final class UnixSocketTransport implements AutoCloseable {

  private static final ByteBufAllocator ALLOCATOR = UnpooledByteBufAllocator.DEFAULT;

  private final EventLoopGroup group;

  /**
   * @param threads NIO event loop threads (2 is plenty for a device plugin)
   */
  public UnixSocketTransport(int threads) {
    this.group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
  }

  /**
   * Binds and starts a server on {@code socket}, replacing a stale file left at that path (a
   * crashed previous run would otherwise make the bind fail with "Address already in use").
   *
   * <p>The socket file appears at {@code socket} only once the server accepts connections: the
   * server binds a hidden staging path in the same directory ({@code .<name>.tmp}; the kubelet's
   * plugin watcher skips hidden files) and the file is then renamed into place. Binding in place
   * would make the file visible between bind(2) and listen(2), and the kubelet dials a socket as
   * soon as it sees it: on a loaded node that dial could be refused.
   *
   * @throws IOException when the socket cannot be bound or moved into place
   */
  public Server startServer(Path socket, List<BindableService> services) throws IOException {
    Path staging = socket.resolveSibling("." + socket.getFileName() + ".tmp");
    Files.deleteIfExists(staging);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(UnixDomainSocketAddress.of(staging))
            .channelType(NioServerDomainSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            .withOption(ChannelOption.ALLOCATOR, ALLOCATOR)
            .withChildOption(ChannelOption.ALLOCATOR, ALLOCATOR);
    services.forEach(builder::addService);
    Server server = builder.build().start();
    try {
      // rename(2): atomic, and replaces a stale file at the final path
      Files.move(staging, socket, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      server.shutdownNow();
      Files.deleteIfExists(staging);
      throw e;
    }
    return server;
  }

  /** A plaintext channel to the server listening on {@code socket}; the caller shuts it down. */
  public ManagedChannel channel(Path socket) {
    return NettyChannelBuilder.forAddress(UnixDomainSocketAddress.of(socket))
        .channelType(NioDomainSocketChannel.class)
        .eventLoopGroup(group)
        .withOption(ChannelOption.ALLOCATOR, ALLOCATOR)
        .usePlaintext()
        .build();
  }

  /** Shuts the event loop group down, waiting at most 5 s. */
  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
