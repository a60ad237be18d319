public import HTTPServing
public import Positioning
import Hummingbird
import HummingbirdWebSocket
import Synchronization
import GeoBase

/// The live map page's server (Hummingbird 2 with hummingbird-websocket): `GET /` the page,
/// `GET /frame.png` the current frame (the page's first image, so the map shows on load),
/// `/ws` a WebSocket carrying frames (binary PNG) and status (text JSON) out and gestures and
/// commands (text JSON, `PageMessage`) in. Nothing is fetched from elsewhere. The server is a
/// `LocalServer`: only this machine's pages (or origins the user allows) may read the position.
public enum LivePageServer {
    /// Frames are looked for this often per connection (about 30 per second); a frame is sent
    /// only when the view drew a new one.
    static let framePeriod = Duration.milliseconds(33)
    /// The largest message a page may send, bytes.
    static let maximumMessage = 1 << 16

    /// Adds the page's routes to `router`.
    static func addRoutes(to router: Router<BasicWebSocketRequestContext>, _ session: MapSession) {
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: LivePage.html)))
        }
        router.get("/frame.png") { _, _ in
            let png = await session.png()
            return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
        let connections = Atomic<Int>(0)
        router.ws("/ws") { inbound, outbound, _ in
            let connection = connections.add(1, ordering: .relaxed).newValue
            // Frames and status out while messages come in; the sender stops with the page.
            let sender = Task {
                var seen = 0
                while !Task.isCancelled {
                    if let next = await session.frame(after: seen) {
                        seen = next.frame
                        try await outbound.write(.binary(ByteBuffer(bytes: next.png)))
                        try await outbound.write(.text(await session.status()))
                    }
                    try await Task.sleep(for: framePeriod)
                }
            }
            defer { sender.cancel() }
            do {
                for try await message in inbound.messages(maxSize: maximumMessage) {
                    guard case .text(let text) = message else { continue }
                    if let error = await session.handle(text, connection: connection) {
                        try await outbound.write(.text("{\"error\":\(JSONText.quoted(error))}"))
                    }
                }
            } catch {
                // A page that goes away mid-message: end its gesture below, as for a close.
            }
            await session.disconnected(connection)
        }
    }

    /// Serves the page as `options` say until SIGINT or SIGTERM (or cancellation); `serving` gets
    /// each bound address as a URL once it is bound.
    public static func run(_ session: MapSession, options: LocalServer.Options, serving: @escaping @Sendable (String) -> Void = { _ in },
                           note: @escaping @Sendable (String) -> Void) async throws {
        let server = try LocalServer(options)
        addRoutes(to: server.router, session)
        try await server.run(serving: serving, note: note)
    }

    /// Serves the page (``run(_:options:serving:note:)``) while the view follows the fixes of
    /// `source`, if any, through a `PositioningManager` (`MapSession.follow`). The server ends on
    /// SIGINT or SIGTERM and the following ends with it; a source that ends first (a replayed
    /// file) leaves the page serving.
    public static func run(_ session: MapSession, following source: (any PositionSource)?, options: LocalServer.Options,
                           serving: @escaping @Sendable (String) -> Void = { _ in }, note: @escaping @Sendable (String) -> Void) async throws {
        // Each task says whether it was the server.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            if let source {
                let manager = PositioningManager(source: source)
                group.addTask {
                    await session.follow(manager)
                    await manager.stop()
                    return false
                }
            }
            group.addTask {
                try await run(session, options: options, serving: serving, note: note)
                return true
            }
            while let serverEnded = try await group.next() {
                if serverEnded { group.cancelAll() }
            }
        }
    }
}
