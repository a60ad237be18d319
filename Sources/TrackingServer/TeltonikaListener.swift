import Foundation
import GeoBase
public import HTTPServing
import NIOCore
import NIOPosix
import Synchronization
import TrackingProtocols

/// Teltonika devices over TCP (Codec 8 and 8 Extended, `TeltonikaDecoder`), each connection
/// served on its event loop (`TeltonikaConnection`): the IMEI login is
/// answered 0x01 when the device may send (registered, or `UnknownDevicePolicy.register`) and
/// 0x00 otherwise, then each packet's records are stored and acknowledged with their count
/// after the group commit. A packet whose commit fails gets no acknowledgement and the
/// connection is closed, so the device keeps the records and resends them. Records that are not
/// valid fixes (latitude 91, a time before 2000) are counted as rejected and acknowledged with
/// the packet: a device resends an unacknowledged packet whole, for ever. A malformed packet (bad
/// CRC, a length over 64 KiB) closes the connection.
///
/// A connection that sends nothing for `idleTimeout` is closed (a slowloris half-packet, or one
/// of 20,000 idle sockets, holds no descriptor for ever). Devices may keep a link open up to 72 h
/// between records ("Active Data Link Timeout", 0…259,200 s, FM1100 user manual §8.3.2); one whose
/// link was closed opens a new one and logs in again at its next send, so nothing is lost — a
/// device sending less often than every 10 minutes (the default) pays a login per send. The link
/// is only needed open for server-to-device commands (Codec 12), which this server does not send.
///
/// Its connections count in the process's bound with the HTTP server's (`OpenConnections`): one
/// over it is closed as soon as it is accepted. Connections it closes are counted by reason in
/// `tracking_teltonika_closed_total` (`TrackingMetrics.TeltonikaClose`).
public enum TeltonikaListener {
    /// How long a connection may stay silent before it is closed: 10 minutes.
    public static let defaultIdleTimeout: Duration = .seconds(600)

    /// Listens until the calling task is cancelled, then closes every connection and returns
    /// once they are closed; `bound` gets the port once listening.
    /// - Parameter connections: the bound its open connections count in (by default the
    ///   process's, shared with the HTTP server).
    public static func run(host: String, port: Int, ingest: TrackingIngest, idleTimeout: Duration = defaultIdleTimeout,
                           connections: OpenConnections = .process, bound: @escaping @Sendable (Int) -> Void) async throws {
        let idle = TimeAmount(idleTimeout), metrics = ingest.metrics, open = ListenerChannels()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard connections.admit(channel) else {
                    metrics.closedTeltonika(.connections)
                    channel.close(promise: nil)
                    return channel.eventLoop.makeFailedFuture(HTTPServingError(.tooManyConnections, "over \(connections.maximum) connections"))
                }
                // Accepted while the listener ends: closed, as the others are.
                guard open.add(channel) else {
                    channel.close(promise: nil)
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([IdleStateHandler(readTimeout: idle), CloseWhenIdle(metrics: metrics),
                                                                     TeltonikaConnection(ingest: ingest)])
                }
            }
            .bind(host: host, port: port).get()
        bound(server.localAddress?.port ?? port)
        await withTaskCancellationHandler {
            try? await server.closeFuture.get()
        } onCancel: {
            server.close(promise: nil)
        }
        await open.closeAll()
    }
}

/// The listener's open connections, closed together when it ends. Each connection is served on
/// its event loop, so this set is all that holds them (a Swift task a connection did before:
/// one accepted while the listener ended was never handed to a task, and stayed open until its
/// idle timeout).
final class ListenerChannels: Sendable {
    private let state = Mutex<(open: [ObjectIdentifier: any Channel], ending: Bool)>(([:], false))

    /// Keeps `channel` until it closes; false once the listener is ending (then it is the
    /// caller's to close).
    func add(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        guard state.withLock({ state in
            guard !state.ending else { return false }
            state.open[key] = channel
            return true
        }) else { return false }
        channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: key) } }
        return true
    }

    /// Closes every connection kept, refuses those added after, and returns once they are closed.
    func closeAll() async {
        let open = state.withLock { state in
            state.ending = true
            return Array(state.open.values)
        }
        for channel in open { channel.close(promise: nil) }
        for channel in open { try? await channel.closeFuture.get() }
    }
}

/// One Teltonika connection, served on its event loop as its bytes arrive: the login answered,
/// each packet's fixes handed to the group commit and its record count acknowledged once they
/// are stored (as the HTTP ingest routes do on their event loops, `IngestRoutes`). Served before in a Swift
/// task a connection through `NIOAsyncChannel`, each packet took two hops between the event loop
/// and the task's thread: 19,800 devices at 1 Hz cost the server 61 µs of CPU a fix, against 51
/// for OsmAnd's requests (session 75). While a packet's commit is in flight the connection reads
/// no more (its `read` is held, as NIO's `BackPressureHandler` does), so the next packet waits in
/// the socket, not in memory, and acknowledgements go in the packets' order. Nor while the
/// connection is not writable: a device that sends and never reads its acknowledgements fills
/// the socket and then NIO's buffer up to its high watermark (64 KiB), not memory without bound
/// (as the task's awaited writes held it before).
final class TeltonikaConnection: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let ingest: TrackingIngest
    private var decoder = TeltonikaDecoder(), buffer: [UInt8] = []
    /// A packet's commit is in flight; a `read` asked for meanwhile (or while the channel is not
    /// writable) waits for it to end.
    private var committing = false, readHeld = false, ended = false

    init(ingest: TrackingIngest) { self.ingest = ingest }

    func channelActive(context: ChannelHandlerContext) {
        ingest.metrics.request("teltonika")
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        buffer += unwrapInboundIn(data).readableBytesView
        serveFrames(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended = true
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if committing || !context.channel.isWritable { readHeld = true } else { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        releaseHeldRead(context)
        context.fireChannelWritabilityChanged()
    }

    /// Reads again where a read was held and nothing holds it now.
    private func releaseHeldRead(_ context: ChannelHandlerContext) {
        guard readHeld, !committing, context.channel.isWritable else { return }
        readHeld = false
        context.read()
    }

    /// Answers the whole frames buffered, in order, until a packet's commit is in flight.
    private func serveFrames(_ context: ChannelHandlerContext) {
        let metrics = ingest.metrics
        while !committing, !ended {
            let frame: TeltonikaFrame?
            do {
                frame = try decoder.next(from: &buffer, rules: DecodingRules(now: Date()))
            } catch {
                metrics.rejected(1)
                metrics.closedTeltonika(.malformed)
                context.close(promise: nil)
                return
            }
            guard let frame else { return }
            switch frame {
            case .login(let imei):
                let accepted = ingest.accepts(device: imei)
                // Written at once (the flush writes to the socket), so a close after it still sends it.
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Teltonika.loginReply(accepted: accepted))), promise: nil)
                if !accepted {
                    metrics.refusedUnknownDevice()
                    context.close(promise: nil)
                    return
                }
            case .records(let records, let fixes):
                if !fixes.rejected.isEmpty { metrics.rejected(fixes.rejected.count) }
                guard !fixes.fixes.isEmpty else { // nothing to store: acknowledged now, as a device resends a packet for ever
                    acknowledge(records.count, context)
                    continue
                }
                committing = true
                // The completion comes on this event loop (`completingOn`).
                let here = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                ingest.ingest(fixes.fixes, receivedAt: Date(), completingOn: context.eventLoop) { result in
                    let (connection, context) = here.value
                    connection.committed(result, records: records.count, context)
                }
            }
        }
    }

    /// Tells the device that a packet's `records` are stored.
    private func acknowledge(_ records: Int, _ context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Teltonika.ackReply(count: records))), promise: nil)
    }

    /// A packet's commit has ended: its acknowledgement, then the frames that came meanwhile.
    private func committed(_ result: Result<Void, IngestError>, records: Int, _ context: ChannelHandlerContext) {
        committing = false
        guard !ended else { return }
        guard case .success = result else {
            context.close(promise: nil) // no acknowledgement: the device keeps the records
            return
        }
        acknowledge(records, context)
        serveFrames(context)
        releaseHeldRead(context)
    }
}

/// Closes its channel on the read-idle event of the `IdleStateHandler` before it.
final class CloseWhenIdle: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let metrics: TrackingMetrics

    init(metrics: TrackingMetrics) { self.metrics = metrics }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            metrics.closedTeltonika(.idle)
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
