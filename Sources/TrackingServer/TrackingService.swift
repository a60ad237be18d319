public import HTTPServing

extension TrackingRoutes {
    /// The whole tracking server, as `geo serve-tracking` runs it: the routes on `options`
    /// (``run(_:ingest:serving:note:)``), with the Teltonika listener (Codec 8/8E over TCP) at
    /// `teltonikaPort` on the first of `options.hosts` and the hourly removal of history older
    /// than `retentionDays` days beside them. Ends when the routes end (SIGINT, SIGTERM or
    /// cancellation); the listener and the removal end with them.
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
