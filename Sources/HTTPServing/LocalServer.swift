public import GeoCore
public import Hummingbird
import HummingbirdCore
public import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import UnixSignals
public import GeoBase

/// A Hummingbird server for the person at this machine, as every server of the project runs
/// (the live map page, the tile server, the tracking server): loopback unless told otherwise,
/// `Host` and `Origin` checked (`HostPolicy`), client frames masked (`MaskedFramesOnly`),
/// heads and waits bounded (`RequestLimits`), a connection's unsent answers bounded
/// (`SendBacklog`), its open connections bounded under the open-file limit (`OpenConnections`),
/// and an end within a deadline on SIGINT or SIGTERM.
///
/// Add routes to `router`, then `run`. Every request is held to the `HostPolicy` before a route
/// sees it: a connection's first (where a WebSocket handshake happens) by `FirstHeadGuard`, each
/// later one by `EventLoopRouteHandler`.
public struct LocalServer {
    /// Where and for whom a server listens.
    public struct Options: Sendable, Equatable {
        /// TCP port; 0 lets the system pick one (the first host's, then used for the others).
        public var port: Int
        /// The ports a user may give: a TCP port, 0 letting the system pick one.
        public static let ports = ValidRange(0...65_535, unit: "")
        /// Addresses to bind; the first must bind, later ones are skipped with a note when they
        /// cannot (a machine without IPv6).
        public var hosts: [String]
        /// Origins whose pages may use the server (`HostPolicy`).
        public var allowedOrigins: [String]
        public var limits: RequestLimits
        /// Names besides the bound addresses that `Host` may give (`HostPolicy`'s `hostNames`):
        /// a server that devices reach by a DNS name (the tracking server) names it here rather
        /// than turning the Host check off, which would open its read API to DNS rebinding.
        public var hostNames: [String]
        /// The most connections open at once, all hosts together (`OpenConnections`); nil for
        /// the process's bound (`OpenConnections.process`: the open-file limit less
        /// `OpenConnections.reservedDescriptors`, every server of the process together).
        public var maximumConnections: Int?

        public init(port: Int, hosts: [String] = ["127.0.0.1", "::1"], allowedOrigins: [String] = [], limits: RequestLimits = .init(),
                    hostNames: [String] = [], maximumConnections: Int? = nil) {
            self.port = port
            self.hosts = hosts
            self.allowedOrigins = allowedOrigins
            self.limits = limits
            self.hostNames = hostNames
            self.maximumConnections = maximumConnections
        }
    }

    public let router: Router<BasicWebSocketRequestContext>
    public let options: Options
    /// What this server refused before a route saw it, for its `/metrics`.
    public let refusals: HTTPRefusals
    let policy: HostPolicy

    /// - Parameter refusals: where the server counts what it refuses (a new counter unless given).
    public init(_ options: Options, refusals: HTTPRefusals = HTTPRefusals()) throws(HTTPServingError) {
        guard !options.hosts.isEmpty else { throw HTTPServingError(.cannotBind, "no address to serve on") }
        let policy = try HostPolicy(bindAddresses: options.hosts, allowedOrigins: options.allowedOrigins, hostNames: options.hostNames)
        router = Router(context: BasicWebSocketRequestContext.self)
        self.refusals = refusals
        self.options = options
        self.policy = policy
    }

    /// Connections the kernel queues before they are accepted (listen(2)'s backlog; Linux caps
    /// it at `net.core.somaxconn`, 4096 since 5.4): with Hummingbird's 256, trackers connecting
    /// all at once overflowed the queue and waited for their SYN to be sent again (1 s, then 3 s).
    static let backlog = 4096

    /// Connections accepted each time the listening socket is read (NIO's `maxMessagesPerRead`,
    /// 4 by default, which Hummingbird keeps): a server restarted under 19,700 trackers took them
    /// back 4 a turn of its event loop, between the requests of those already back, and the
    /// queue overflowed (SYNs dropped, sent again after 1 s). Fresh server, `geo loadgen` of
    /// 19,700 devices, four runs each: connected in 2.6–3.9 s with 4, 2.0–3.1 s with 256.
    static let acceptsPerRead: UInt = 256

    /// Serves until SIGINT or SIGTERM, or until the calling task is cancelled, and then stops
    /// gracefully (in-flight requests answered, within half of `shutdownDeadline`). `serving` gets
    /// each bound address as a URL (`http://127.0.0.1:8080/`) once it is bound, so nothing says
    /// "serving" before the port is really taken. Throws the first host's bind error.
    /// - Parameter eventLoopRoutes: requests answered on the event loop before the router
    ///   (`EventLoopRoutes`, under the same limits and host checks); nil for none.
    public func run(eventLoopRoutes: (any EventLoopRoutes)? = nil, serving: @escaping @Sendable (String) -> Void,
                    note: @escaping @Sendable (String) -> Void) async throws {
        try await serve(router.buildResponder(), eventLoopRoutes: eventLoopRoutes, serving: serving, note: note)
    }

    /// Serves as `run(serving:note:)`, but each request that passes the host check goes to
    /// `handler` instead of the router, whose routes are then not served: for a server that
    /// reads its paths itself (the tile server's `TileRoute`), this spares the router's walk of
    /// its trie per request (4.5 % of `geo serve`'s CPU time under wrk, `perf`).
    /// - Parameter eventLoopRoutes: requests answered on the event loop before `handler`
    ///   (`EventLoopRoutes`, under the same limits and host checks); nil for none.
    public func run(handler: @escaping @Sendable (Request) async -> Response, eventLoopRoutes: (any EventLoopRoutes)? = nil,
                    serving: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void) async throws {
        let responder = CallbackResponder<BasicWebSocketRequestContext> { request, _ in await handler(request) }
        try await serve(responder, eventLoopRoutes: eventLoopRoutes, serving: serving, note: note)
    }

    private func serve<Responder: HTTPResponder>(_ responder: Responder, eventLoopRoutes: (any EventLoopRoutes)?,
                                                 serving: @escaping @Sendable (String) -> Void,
                                                 note: @escaping @Sendable (String) -> Void) async throws
    where Responder.Context == BasicWebSocketRequestContext {
        let limits = options.limits, policy = self.policy, refusals = self.refusals, connections = options.maximumConnections.map { OpenConnections(maximum: $0) } ?? .process
        let webSocket = WebSocketServerConfiguration(maxFrameSize: 1 << 16, extensions: [.nonNegotiatedExtension { MaskedFramesOnly() }],
                                                     autoPing: .enabled(timePeriod: limits.pingPeriod), closeTimeout: limits.shutdownDeadline / 2)
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = limits.maximumHead
        decoder.maxHeaderListSize = limits.maximumHead
        // `EventLoopRouteHandler` keeps the idle timeout for every request: Hummingbird's counts
        // only the requests it sees, and would close a connection busy with the event-loop routes.
        let http1 = HTTP1Channel.Configuration(idleTimeout: nil, httpDecoderConfiguration: decoder)
        let server = HTTPServerBuilder { httpResponder in
            GuardedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: httpResponder, webSocketResponder: responder,
                                                               configuration: .init(http1: http1, ws: webSocket)),
                           limits: limits, policy: policy, refusals: refusals, connections: connections, eventLoopRoutes: eventLoopRoutes)
        }
        let logger = Logger(label: "Hummingbird") { _ in ServerLog(note: note) }
        @Sendable func application(_ host: String, port: Int, bound: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
            Application(responder: BacklogBoundResponder(inner: responder), server: server, configuration: .init(address: .hostname(host, port: port), backlog: Self.backlog),
                        onServerRunning: { channel in
                            // Set once listening: Hummingbird's configuration has no place for it.
                            try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: Self.acceptsPerRead)
                            let actual = channel.localAddress?.port ?? port
                            serving("http://\(host.contains(":") ? "[\(host)]" : host):\(actual)/")
                            bound(actual)
                        }, logger: logger)
        }
        // The first host's port, once bound (with port 0, the one the system picked).
        let (firstPort, firstPortContinuation) = AsyncStream.makeStream(of: Int.self)
        let first = application(options.hosts[0], port: options.port) { firstPortContinuation.yield($0) }
        // The other hosts bind once the first has, on its port; one that cannot is skipped.
        let others = HostsAfterTheFirst { [hosts = options.hosts.dropFirst()] in
            var ports = firstPort.makeAsyncIterator()
            guard let port = await ports.next() else { return }
            await withTaskGroup(of: Void.self) { group in
                for host in hosts {
                    let app = application(host, port: port) { _ in }
                    group.addTask {
                        do { try await app.run() } catch { note("not serving on \(host): \(error)") }
                    }
                }
            }
        }
        // One group, so that one signal handler ends every host's server.
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: first), .init(service: others, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: first.logger)
        // Half the deadline for the graceful end, half for a WebSocket peer's close frame after.
        configuration.maximumGracefulShutdownDuration = limits.shutdownDeadline / 2
        // Cancelling the task that serves stops the server as SIGTERM does, gracefully. The group
        // runs in a task of its own: cancelled, it tore the listeners down under Hummingbird, which
        // noted each teardown as an error ("Waiting on child channel: CancellationError()",
        // "Server shutdown error: Already closed").
        let group = ServiceGroup(configuration: configuration)
        let running = Task { try await group.run() }
        do {
            try await withTaskCancellationHandler { try await running.value } onCancel: { Task { await group.triggerGracefulShutdown() } }
        } catch {
            firstPortContinuation.finish()
            throw HTTPServingError(.cannotBind, "cannot serve on \(options.hosts[0]) port \(options.port): \(error)")
        }
    }
}

/// The servers of every host but the first, as one service of the group.
private struct HostsAfterTheFirst: Service {
    let body: @Sendable () async -> Void
    init(_ body: @escaping @Sendable () async -> Void) { self.body = body }
    func run() async { await body() }
}

/// A server child channel with `SendBacklog` and `FirstHeadGuard` in front of the HTTP decoder, an
/// `EventLoopRouteHandler` after the inner channel's handlers (after the WebSocket upgrade handler,
/// before those it adds for HTTP) and, with event-loop routes, their `EventLoopRouteFastPath` after
/// the guard (still in front of the decoder), the two sharing a `RouteActivity`. Its handler runs
/// with the connection as `WebSocketConnection.current`'s.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let limits: RequestLimits
    let policy: HostPolicy
    let refusals: HTTPRefusals
    let connections: OpenConnections
    let eventLoopRoutes: (any EventLoopRoutes)?

    /// A connection over `connections`' bound is closed here, before any handler: its setup
    /// fails, and NIO drops a child whose setup failed without a word.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard connections.admit(channel) else {
            refusals.count(.connections)
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(HTTPServingError(.tooManyConnections, "over \(connections.maximum) connections"))
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers([SendBacklog(timeout: limits.idleTimeout, refusals: refusals),
                                                             FirstHeadGuard(limits: limits, policy: policy, refusals: refusals)], position: .first)
        }.flatMap { inner.setup(channel: channel, logger: logger) }
        .flatMapThrowing { [limits, policy, refusals, eventLoopRoutes] value in
            let pipeline = channel.pipeline.syncOperations, activity = RouteActivity()
            if let eventLoopRoutes {
                try pipeline.addHandler(EventLoopRouteFastPath(routes: eventLoopRoutes, limits: limits, policy: policy, activity: activity),
                                        position: .after(pipeline.handler(type: FirstHeadGuard.self)))
            }
            try pipeline.addHandler(EventLoopRouteHandler(routes: eventLoopRoutes ?? NoEventLoopRoutes(), limits: limits, policy: policy,
                                                          refusals: refusals, activity: activity))
            return value
        }
    }

    /// Cancelled (the graceful shutdown's deadline passed), the connection is cut: the inner
    /// handler may be awaiting the first request's upgrade decision, a future no cancellation
    /// ends (a connection halfway through its first head held a stopped server until its head
    /// timeout).
    func handle(value: Value, logger: Logger) async {
        await withTaskCancellationHandler {
            await WebSocketConnection.$served.withValue(value.channel) { await inner.handle(value: value, logger: logger) }
        } onCancel: {
            value.channel.closeEndingInput()
        }
    }
}

/// The event-loop routes of a server that has none: every request goes on to the router.
private struct NoEventLoopRoutes: EventLoopRoutes {
    var maximumBodyBytes: Int { 0 }
    func answers(_ head: HTTPRequestHead) -> Bool { false }
    func respond(to request: EventLoopRequest, reply: EventLoopPromise<EventLoopResponse>) {
        reply.succeed(EventLoopResponse(status: .notFound, body: "not found\n"))
    }
}
