import ArgumentParser
import HTTPServing
import Monitoring
import TrackingServer

/// `geo serve-tracking`: the tracking server (TrackingServer) on an SQLite file or PostgreSQL.
struct ServeTrackingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-tracking",
        abstract: "Receive positions from trackers (OsmAnd, OwnTracks, Overland, GPSLogger) and store them.",
        discussion: """
            Endpoints: / (OsmAnd), /owntracks, /overland, /gpslogger; GET /api/positions?device=…&from=…&to=…&format=geojson|gpx&track=raw|cleaned|matched \
            (cleaned: geo gpx clean's default rules and smoother; matched: geo match over --roads); \
            GET /api/events?device=…&from=…&to=… (geofence events with --fences); \
            GET /metrics. A fix is acknowledged only after it is committed to the database (SQLite: WAL, synchronous=FULL; \
            PostgreSQL with --postgres: COMMIT acknowledged); a failing database answers 503. The first line on standard output is the base URL once listening.
            """
    )

    @Option(help: "SQLite database file, created when absent.")
    var db: String = "tracking.sqlite"

    @Option(help: ArgumentHelp("Store in PostgreSQL instead of SQLite (schema created when absent); repeated, the databases are shards, each device on one by rendezvous hashing.", valueName: "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"))
    var postgres: [String] = []

    @Option(name: .customLong("postgres-replica"), help: ArgumentHelp("A streaming replica of a --postgres database (pg_basebackup -R), serving its history reads (/api/positions, /api/events); repeatable.", valueName: "URL"))
    var postgresReplicas: [String] = []

    @OptionGroup var server: ServerOptions<TrackingPort>

    @Option(name: .customLong("host-name"), help: ArgumentHelp("A DNS name devices reach the server by, accepted in Host; repeatable.", valueName: "NAME"))
    var hostNames: [String] = []

    @Option(name: .customLong("device"), help: ArgumentHelp("Register a device; NAME:knots reads its OsmAnd speed in knots (Traccar's unit) instead of m/s. Repeatable.", valueName: "NAME[:knots]"))
    var devices: [String] = []

    @Flag(help: "Register unknown devices on their first fix instead of refusing them (403).")
    var autoRegister = false

    @Option(help: ArgumentHelp("Remove fix history of the UTC days that ended more than N days ago (\(TrackingServerConfiguration.retentionDayCounts)), at start and hourly; PostgreSQL drops their partitions. Latest positions stay. Default: keep everything.", valueName: "N"))
    var retentionDays: Int?

    @Option(help: "Also listen for Teltonika devices (Codec 8 / 8E over TCP) on this port, on the first --host.")
    var teltonikaPort: Int?

    @Option(help: ArgumentHelp("Geofences decided after each commit: GeoJSON Polygon/MultiPolygon features, Point features with a 'radius' property in metres (circles), or an Osmosis .poly file; each fence named by its 'identifier' property, else its id, its 'id' property or its 'name'. Events enter/exit/dwell are stored, pushed on /live and read at /api/events.", valueName: "FILE"))
    var fences: String?

    @Option(help: "With --fences: a dwell event after this many seconds inside (\(RegionMonitor.dwellTimes)).")
    var dwell: Double = 300

    @Option(help: ArgumentHelp("Roads for /api/positions?track=matched: an OSM extract whose car graph the offline matcher uses (as geo match).", valueName: "FILE.osm.pbf"))
    var roads: String?

    @Option(name: .customLong("live-match"), help: ArgumentHelp("With --roads: a device whose fixes, once stored, go through the clean-track rules and the online matcher (as geo match --online), each answer pushed to its /live followers as a 'matched' message. Repeatable.", valueName: "NAME"))
    var liveMatch: [String] = []

    @Option(help: ArgumentHelp("With --fences: POST each batch of events as JSON to this URL, retried with backoff; a dead receiver never slows ingest.", valueName: "http://HOST:PORT/PATH"))
    var webhook: String?

    @Option(help: ArgumentHelp("The least milliseconds between two /live messages to one subscriber, \(LiveFanOut.intervalsInMilliseconds) (default 20); its fixes meanwhile join one message.", valueName: "MS"))
    var liveInterval: Int?

    func validate() throws {
        if let teltonikaPort { try LocalServer.Options.ports.check(teltonikaPort, option: "--teltonika-port") }
        try TrackingServerConfiguration.retentionDayCounts.check(retentionDays, option: "--retention-days")
        try RegionMonitor.dwellTimes.check(dwell, option: "--dwell")
        if webhook != nil, fences == nil { throw ValidationError("--webhook needs --fences") }
        if !liveMatch.isEmpty, roads == nil { throw ValidationError("--live-match needs --roads") }
        if !postgresReplicas.isEmpty, postgres.isEmpty { throw ValidationError("--postgres-replica needs --postgres") }
        try LiveFanOut.intervalsInMilliseconds.check(liveInterval, option: "--live-interval")
    }

    func run() async throws {
        var configuration = TrackingServerConfiguration(postgresURLs: postgres, sqlitePath: db, policy: autoRegister ? .register : .refuse)
        configuration.replicaURLs = postgresReplicas
        configuration.devices = devices.map(DeviceSettings.init(spec:))
        configuration.fences = try fences.map { path in
            FenceOptions(fences: try CommandLineFiles.reading(path) { try RegionsFile.conditions(atPath: path) }, dwell: .milliseconds(Int64((dwell * 1000).rounded())),
                         webhook: webhook)
        }
        configuration.matcher = try roads.map { roads in try CommandLineFiles.reading(roads) { try TrackRoads.matcher(osmFile: roads) } }
        if let matcher = configuration.matcher, !liveMatch.isEmpty {
            configuration.liveMatching = LiveMatchingOptions(devices: Set(liveMatch), matcher: matcher)
        }
        if let liveInterval { configuration.liveInterval = .milliseconds(liveInterval) }
        configuration.teltonikaPort = teltonikaPort
        configuration.retentionDays = retentionDays
        try await server.run("serve-tracking", printsURL: true) { serving in
            // The HTTP server ends on SIGTERM or SIGINT; the Teltonika listener ends with it.
            try await TrackingRoutes.run(configuration, on: server.bind(hostNames: hostNames), serving: serving, note: CommandLineFiles.note("serve-tracking"))
        }
    }
}

/// `geo loadgen`: simulated devices against a tracking server, and `verify` of what it logged.
struct LoadgenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadgen",
        abstract: "Send fixes from N simulated devices at 1 Hz to a tracking server in one of its protocols; log what was acknowledged.",
        subcommands: [LoadgenRunCommand.self, LoadgenVerifyCommand.self],
        defaultSubcommand: LoadgenRunCommand.self
    )
}

struct LoadgenRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Generate load (the default of geo loadgen).")

    @Option(help: "The server's base URL, http://HOST:PORT/ (tcp://HOST:PORT, its --teltonika-port, for Teltonika).")
    var url: String

    @Option(name: .customLong("protocol"), help: ArgumentHelp("What the devices send: \(LoadGenerator.Options.Wire.names.map(\.0).joined(separator: ", ")).", valueName: "NAME"))
    var wireName = "osmand"

    @Option(help: "Simulated devices (\(LoadGenerator.Options.deviceCounts)), each on its own keep-alive connection.")
    var devices: Int = 100

    @Option(help: "Seconds to run (\(LoadGenerator.Options.durations)).")
    var duration: Double = 10

    @Option(help: "File for the acknowledged fixes, 'device,fix time ms' a line.")
    var ackLog: String?

    @Option(help: "Device name prefix (default \(LoadGenerator.Options.defaultDevicePrefix); for Teltonika the IMEIs' first digits, default \(LoadGenerator.Options.imeiPrefix)).")
    var prefix: String?

    @Option(help: ArgumentHelp("Send each device's fixes as Overland batches of N (POST /overland, \(LoadGenerator.Options.batchSizes) fixes a request, their times spread over the second before it); implies --protocol overland.", valueName: "N"))
    var overlandBatch: Int?

    /// The wire `--protocol` and `--overland-batch` name; nil for an unknown name.
    var wire: LoadGenerator.Options.Wire? {
        if let overlandBatch { return .overland(batch: overlandBatch) }
        return LoadGenerator.Options.Wire.names.first { $0.0 == wireName }?.1
    }

    @Option(help: ArgumentHelp("Also run S /live WebSocket subscribers following F devices each (e.g. 1000x100) and print their fix time → delivery.", valueName: "SxF"))
    var live: String?

    @Option(help: ArgumentHelp("With --live: the subscribers' server, http://HOST:PORT/ (default --url): another instance on the same database.", valueName: "URL"))
    var liveURL: String?

    func validate() throws {
        try LoadGenerator.Options.deviceCounts.check(devices, option: "--devices")
        try LoadGenerator.Options.batchSizes.check(overlandBatch, option: "--overland-batch")
        try LoadGenerator.Options.durations.check(duration, option: "--duration")
        // --protocol's default, osmand, is the one --overland-batch may replace.
        if overlandBatch != nil, !["osmand", "overland"].contains(wireName) { throw ValidationError("--overland-batch is for --protocol overland") }
        guard let wire else {
            throw ValidationError("--protocol: one of \(LoadGenerator.Options.Wire.names.map(\.0).joined(separator: ", ")), not \(wireName)")
        }
        guard let options else { throw ValidationError("--url: not \(wire.scheme)://HOST:PORT/: \(url)") }
        if let problem = options.prefixProblem() { throw ValidationError("--prefix: \(problem), not \(options.devicePrefix)") }
        if let live, LiveSubscribers.Options.counts(live) == nil { throw ValidationError("--live: SxF (subscribers x devices each), got \(live)") }
        if live != nil, liveURL == nil, options.wire.logsIn { throw ValidationError("--live with Teltonika needs --live-url (the server's HTTP port)") }
        if let liveURL {
            guard live != nil else { throw ValidationError("--live-url needs --live") }
            guard LoadGenerator.Options.hostAndPort(of: liveURL) != nil else { throw ValidationError("--live-url: not http://HOST:PORT/: \(liveURL)") }
        }
    }

    /// The run's options; nil when the URL or the protocol is not one.
    var options: LoadGenerator.Options? {
        guard let wire else { return nil }
        return LoadGenerator.Options(url: url, wire: wire, devices: devices, seconds: duration, devicePrefix: prefix, ackLog: ackLog)
    }

    func run() async throws {
        guard let options else { throw ValidationError("--url or --protocol") } // validate() checked both
        let (report, subscribers) = try await LoadGenerator(options).run(alongside: live.flatMap(LiveSubscribers.Options.counts),
                                                                         on: liveURL.flatMap { LoadGenerator.Options.hostAndPort(of: $0) })
        standardOutput.line("geo loadgen: \(report)")
        if let subscribers { standardOutput.line("geo loadgen: \(subscribers)") }
    }
}

struct LoadgenVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Count acknowledged fixes missing from the database, and duplicated ones; exit 1 unless both are 0.")

    @Option(help: "The SQLite database geo serve-tracking wrote.")
    var db: String?

    @Option(help: ArgumentHelp("The PostgreSQL database geo serve-tracking --postgres wrote; repeated, its shards.", valueName: "URL"))
    var postgres: [String] = []

    func validate() throws {
        guard (db == nil) != postgres.isEmpty else { throw ValidationError("give one of --db FILE and --postgres URL") }
    }

    @Option(help: "The log geo loadgen --ack-log wrote.")
    var ackLog: String

    func run() async throws {
        let store = try await PositionStores.open(postgresURLs: postgres, sqlitePath: db ?? "", readOnly: true)
        let result = try await LoadVerifier.verify(log: ackLog, store: store)
        standardOutput.line("geo loadgen verify: \(result)")
        if result.missing != 0 || result.duplicated != 0 { throw ExitCode(1) }
    }
}
