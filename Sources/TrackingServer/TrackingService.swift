public import GeoCore
public import HTTPServing
public import MapMatching

/// What `geo serve-tracking` serves: where fixes are stored, which devices send, and what is
/// decided and served beside the ingest — one value for ``TrackingRoutes/run(_:on:serving:note:)``.
public struct TrackingServerConfiguration: Sendable {
    /// PostgreSQL's `postgres://` URLs, two or more for shards (`ShardedPositionStore`); none
    /// stores in the SQLite file at ``sqlitePath`` (`PositionStores.open`).
    public var postgresURLs: [String]
    /// Streaming replicas of those databases, for history reads (`PostgresReplica`).
    public var replicaURLs: [String] = []
    public var sqlitePath: String
    /// Whether a device not registered is registered on its first fix or refused (403).
    public var policy: UnknownDevicePolicy
    /// Devices registered (or whose settings are updated) before serving.
    public var devices: [DeviceSettings] = []
    /// Geofences decided after each commit; nil for none.
    public var fences: FenceOptions?
    /// The roads of `track=matched` reads (`TrackRoads.matcher(osmFile:)`); nil for none.
    public var matcher: MapMatcher?
    /// The devices whose fixes are cleaned and matched live after the ack, pushed to their
    /// `/live` followers (`LiveMatching`); nil for none.
    public var liveMatching: LiveMatchingOptions?
    /// The least time between two `/live` messages to one subscriber.
    public var liveInterval = LiveFanOut.defaultInterval
    /// The Teltonika listener's port (Codec 8/8E over TCP); nil for none.
    public var teltonikaPort: Int?
    /// Fix history of UTC days that ended more than this many days ago is removed, at start and
    /// hourly; nil keeps everything.
    public var retentionDays: Int?
    /// The `retentionDays` a user may give: 1 day through 100 years.
    public static let retentionDayCounts = ValidRange(1...36_525, unit: "days")

    public init(postgresURLs: [String], sqlitePath: String, policy: UnknownDevicePolicy) {
        self.postgresURLs = postgresURLs
        self.sqlitePath = sqlitePath
        self.policy = policy
    }
}

extension TrackingRoutes {
    /// The tracking server `configuration` describes on `options`: its store opened, the
    /// ingest over it (`TrackingIngest`), then served as
    /// ``run(_:ingest:teltonikaPort:retentionDays:serving:note:)`` serves it.
    /// - Throws: the store's error (before anything listens), `TrackingIngest`'s, then what
    ///   the routes throw.
    public static func run(_ configuration: TrackingServerConfiguration, on options: LocalServer.Options,
                           serving: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void) async throws {
        let c = configuration
        let store = try await PositionStores.open(postgresURLs: c.postgresURLs, replicaURLs: c.replicaURLs, sqlitePath: c.sqlitePath)
        let ingest = try await TrackingIngest(store: store, policy: c.policy, devices: c.devices, fences: c.fences, matcher: c.matcher, liveMatching: c.liveMatching,
                                              liveInterval: c.liveInterval, note: note)
        try await run(options, ingest: ingest, teltonikaPort: c.teltonikaPort, retentionDays: c.retentionDays, serving: serving, note: note)
    }

    /// The whole tracking server, as `geo serve-tracking` runs it: the routes on `options`
    /// (``run(_:ingest:serving:note:)``), with the Teltonika listener (Codec 8/8E over TCP) at
    /// `teltonikaPort` on the first of `options.hosts`, the hourly removal of history older
    /// than `retentionDays` days and the release of free heap pages once the resident set grew
    /// (`TrackingIngest.releaseFreedMemory`) beside them. Ends when the routes end (SIGINT,
    /// SIGTERM or cancellation); the others end with them.
    /// - Parameters:
    ///   - serving: gets each URL the routes listen on.
    ///   - note: gets the routes' notes for people, and `Teltonika on HOST port N` once the
    ///     listener is bound.
    /// - Throws: what the routes throw (`HTTPServingError.Code.cannotBind`: the port is taken or
    ///   the address is not this machine's).
    public static func run(_ options: LocalServer.Options, ingest: TrackingIngest, teltonikaPort: Int?, retentionDays: Int?,
                           serving: @escaping @Sendable (String) -> Void, note: @escaping @Sendable (String) -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let retentionDays { group.addTask { await ingest.retainHistory(days: retentionDays) } }
            group.addTask { await ingest.releaseFreedMemory() }
            if let teltonikaPort {
                let host = options.hosts.first ?? "127.0.0.1"
                group.addTask {
                    try await TeltonikaListener.run(host: host, port: teltonikaPort, ingest: ingest) { note("Teltonika on \(host) port \($0)") }
                }
            }
            try await run(options, ingest: ingest, serving: serving, note: note)
            group.cancelAll()
        }
    }
}
