import Foundation
import GeoBase
public import HTTPServing
import NIOCore
import NIOPosix
import TrackingProtocols

/// Teltonika devices over TCP (Codec 8 and 8 Extended, `TeltonikaDecoder`): the IMEI login is
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

    /// Listens until the calling task is cancelled; `bound` gets the port once listening.
    /// - Parameter connections: the bound its open connections count in (by default the
    ///   process's, shared with the HTTP server).
    public static func run(host: String, port: Int, ingest: TrackingIngest, idleTimeout: Duration = defaultIdleTimeout,
                           connections: OpenConnections = .process, bound: @escaping @Sendable (Int) -> Void) async throws {
        let idle = TimeAmount(idleTimeout), metrics = ingest.metrics
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> in
                // A failed initializer drops the connection without closing it (NIO's
                // `NIOAsyncChannelHandler`): closed here.
                guard connections.admit(channel) else {
                    metrics.closedTeltonika(.connections)
                    channel.close(promise: nil)
                    return channel.eventLoop.makeFailedFuture(HTTPServingError(.tooManyConnections, "over \(connections.maximum) connections"))
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([IdleStateHandler(readTimeout: idle), CloseWhenIdle(metrics: metrics)])
                    // Closed when dropped: a connection accepted while the listening channel
                    // closes never reaches the accepting loop, and NIO drops it. With
                    // `init(wrappingChannelSynchronously:)` (its teardown only explicit) that
                    // trapped: "Deinited NIOAsyncWriter without calling finish()".
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(synchronouslyWrapping: channel)
                }
            }
        bound(server.channel.localAddress?.port ?? port)
        try await withThrowingDiscardingTaskGroup { group in
            try await withTaskCancellationHandler {
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await serve(connection, ingest: ingest) }
                    }
                }
            } onCancel: {
                server.channel.close(promise: nil)
            }
        }
    }

    static func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, ingest: TrackingIngest) async {
        ingest.metrics.request("teltonika")
        try? await connection.executeThenClose { inbound, outbound in
            var decoder = TeltonikaDecoder(), buffer: [UInt8] = []
            for try await chunk in inbound {
                buffer += chunk.readableBytesView
                while true {
                    let frame: TeltonikaFrame?
                    do {
                        frame = try decoder.next(from: &buffer, rules: DecodingRules(now: Date()))
                    } catch {
                        ingest.metrics.rejected(1)
                        ingest.metrics.closedTeltonika(.malformed)
                        return
                    }
                    guard let frame else { break }
                    switch frame {
                    case .login(let imei):
                        let accepted = ingest.accepts(device: imei)
                        try await outbound.write(ByteBuffer(bytes: Teltonika.loginReply(accepted: accepted)))
                        if !accepted {
                            ingest.metrics.refusedUnknownDevice()
                            return
                        }
                    case .records(let records, let fixes):
                        if !fixes.rejected.isEmpty { ingest.metrics.rejected(fixes.rejected.count) }
                        do {
                            try await ingest.ingest(fixes.fixes, receivedAt: Date())
                        } catch {
                            return // no acknowledgement: the device keeps the records
                        }
                        try await outbound.write(ByteBuffer(bytes: Teltonika.ackReply(count: records.count)))
                    }
                }
            }
        }
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
