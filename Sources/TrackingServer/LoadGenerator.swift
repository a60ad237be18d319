import Foundation
import GeoBase
public import GeoCore
import NIOCore
import NIOPosix
import TrackingProtocols

/// `geo loadgen`: N simulated devices sending fixes to a tracking server over keep-alive
/// connections (one per device), each at `interval` with a random phase and ±10 % jitter, every
/// fix acknowledged written to a log. A fix that is not acknowledged (another status, a lost
/// connection) is sent again at the device's next turn, reconnecting, until it is or the run
/// ends, so that after a server crash the log and the store can be compared. The devices speak
/// one of the server's protocols (`Options.Wire`): OsmAnd requests by default; OwnTracks and
/// GPSLogger posts; Overland batches (a phone that logs and uploads in bulk); Teltonika Codec 8
/// or 8E packets over TCP after an IMEI login, acknowledged by their record count.
///
/// Every device connects first, at most `connectsInFlight` attempts at a time per event loop (a
/// server's listen backlog is a few hundred: 20,000 simultaneous SYNs would be dropped and
/// retried for seconds), each holding its slot `Device.slotHeld` at most; the timed run starts
/// once each device has tried once, so its numbers are those of a connected fleet. A device
/// sends its first fix as soon as it is connected, as a phone does: a server closes a connection
/// that sends nothing (ours after 10 s, `RequestLimits.headTimeout`), and 19,900 devices take
/// that long to connect on two loaded cores (their first timed requests met the closing
/// connections: hundreds of 408s). Those requests are counted apart (`warmUpSent` …).
///
/// The hot path is plain SwiftNIO: each device lives on one event loop of the generator's own
/// group, sends when that loop's timer wheel reaches its turn (one timer per loop, not one per
/// device), writes its request bytes straight to its channel (a buffer of its own, reused,
/// with only the changing fields written) and reads the reply with `HTTPResponseScanner` in a
/// channel handler — no Swift task, async sequence or thread hop per request, so that 20,000
/// devices at 1 Hz cost the generator less than they cost the server it measures.
public struct LoadGenerator: Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var devices: Int
        /// Seconds between a device's fixes (1 s: 1 Hz).
        public var interval: Duration = .seconds(1)
        public var duration: Duration
        /// Device names are this prefix and a number.
        public var devicePrefix = Self.defaultDevicePrefix
        /// The acknowledged fixes' log: `device,fix time in ms` a line.
        public var ackLog: String?
        public var seed: UInt64 = 1
        /// Event-loop threads of the generator (default: one per core).
        public var threads = System.coreCount
        /// After `duration`, how long requests in flight may still be answered; those that are
        /// not count as errors.
        public var drain: Duration = .seconds(10)
        /// Connection attempts in flight at once per event loop.
        public var connectsInFlight = 64
        /// The protocol the devices speak.
        public var wire = Wire.osmAnd

        /// A device's protocol, each as its app or firmware sends it (`TrackingProtocols`).
        public enum Wire: Sendable, Equatable {
            /// `GET /?id=…&lat=…&lon=…&timestamp=…` (milliseconds), one fix a request.
            case osmAnd
            /// `POST /owntracks`, a `_type: location` message with the `X-Limit-U` / `X-Limit-D`
            /// headers of the app's HTTP mode; `tst` is whole seconds, so a device's fixes are a
            /// second apart at least (a turn the jitter brings into the last fix's second takes
            /// the next one). The device is `NAME/phone`.
            case ownTracks
            /// `POST /gpslogger`, the app's `%ALL` form with `time` in ISO 8601 milliseconds,
            /// the device as `ser`.
            case gpsLogger
            /// `POST /overland`, batches of `batch` GeoJSON features with millisecond ISO 8601
            /// times spaced `interval` / `batch` apart, the last at the send time.
            case overland(batch: Int)
            /// Teltonika over TCP (the server's `--teltonika-port`): the IMEI login, then a Codec
            /// 8 packet (8E when `extended`) of one record a turn. Devices are 15-digit IMEIs:
            /// `devicePrefix` (digits) and the index padded with zeros.
            case teltonika(extended: Bool)

            /// `geo loadgen --protocol`'s names, and the wire of each; an Overland batch of 1.
            public static let names: [(String, Wire)] = [("osmand", .osmAnd), ("owntracks", .ownTracks), ("gpslogger", .gpsLogger),
                                                        ("overland", .overland(batch: 1)), ("teltonika", .teltonika(extended: false)),
                                                        ("teltonika-8e", .teltonika(extended: true))]

            /// Whether a device logs in on connecting, and speaks TCP, not HTTP: Teltonika.
            public var logsIn: Bool {
                if case .teltonika = self { true } else { false }
            }

            /// The scheme of the server URL it goes to: `tcp` for Teltonika, else `http`.
            public var scheme: String { logsIn ? "tcp" : "http" }
        }

        /// The name of device `index`: `devicePrefix` and the index; for OwnTracks `/phone`
        /// after it (the app's user/device), for Teltonika the index padded to a 15-digit IMEI.
        public func deviceName(_ index: Int) -> String {
            switch wire {
            case .ownTracks: return "\(devicePrefix)\(index)/phone"
            case .teltonika:
                let digits = String(index)
                return devicePrefix + String(repeating: "0", count: max(0, 15 - devicePrefix.count - digits.count)) + digits
            default: return "\(devicePrefix)\(index)"
            }
        }

        /// What `devicePrefix` must be for the wire, or nil when it is fine: a Teltonika IMEI
        /// holds only digits, 15 with the index.
        public func prefixProblem() -> String? {
            guard wire.logsIn else { return nil }
            guard devicePrefix.allSatisfy({ ("0"..."9").contains($0) }), devicePrefix.count + String(devices - 1).count <= 15 else {
                return "a Teltonika device is a 15-digit IMEI: the prefix must be digits, at most \(15 - String(devices - 1).count) of them"
            }
            return nil
        }

        /// The devices one generator may simulate (`geo loadgen --devices`), each on a connection.
        public static let deviceCounts = ValidRange(1...100_000, unit: "")
        /// How long a run may last, seconds (`--duration`): up to a day.
        public static let durations = ValidRange(above: 0, through: 86_400, unit: "s")
        /// Fixes an Overland batch may hold (`--overland-batch`).
        public static let batchSizes = ValidRange(1...10_000, unit: "")
        /// The device name prefix unless given: `loadgen-0`, `loadgen-1`, …
        public static let defaultDevicePrefix = "loadgen-"
        /// The device name prefix of a Teltonika run unless given: IMEIs `35000…`.
        public static let imeiPrefix = "35"

        public init(host: String, port: Int, devices: Int, duration: Duration) {
            self.host = host
            self.port = port
            self.devices = devices
            self.duration = duration
        }

        /// `geo loadgen`'s run: `devices` speaking `wire` to the server at `url`
        /// (`http://HOST:PORT/`, `tcp://HOST:PORT` for Teltonika; nil for other text,
        /// ``hostAndPort(of:scheme:)``) for `seconds` (whole milliseconds), named from
        /// `devicePrefix` (`deviceName(_:)`; nil: `defaultDevicePrefix`, for Teltonika `imeiPrefix`),
        /// acknowledgements logged to `ackLog`.
        public init?(url: String, wire: Wire, devices: Int, seconds: Double, devicePrefix: String?, ackLog: String?) {
            guard let (host, port) = Self.hostAndPort(of: url, scheme: wire.scheme) else { return nil }
            self.init(host: host, port: port, devices: devices, duration: .milliseconds(Int(seconds * 1000)))
            (self.wire, self.ackLog) = (wire, ackLog)
            if let prefix = devicePrefix ?? (wire.logsIn ? Self.imeiPrefix : nil) { self.devicePrefix = prefix }
        }
    }

    /// What a run measured.
    public struct Report: Sendable, CustomStringConvertible {
        public var sent = 0
        /// Requests acknowledged.
        public var acknowledged = 0
        /// Fixes in the acknowledged requests (more than `acknowledged` with Overland batches).
        public var acknowledgedFixes = 0
        /// Requests not acknowledged: replies other than 2xx, requests lost with their
        /// connection or unanswered at the end (so `sent` = `acknowledged` + `errors`).
        public var errors = 0
        /// Connections made after a device's first (failed attempts are not counted).
        public var reconnects = 0
        /// Request → acknowledgement latencies of the acknowledged requests, by when their
        /// request was sent.
        var latencies = Latencies()
        /// From the start to the last device's end, seconds.
        public var seconds = 0.0
        /// Connecting every device before the start, seconds.
        public var connectSeconds = 0.0
        /// The requests sent before the start, each device's first as it connected: the
        /// acknowledged ones are logged, but none is in the counts and latencies above.
        public var warmUpSent = 0, warmUpAcknowledged = 0, warmUpAcknowledgedFixes = 0, warmUpErrors = 0

        public init() {}

        init(duration: Duration) {
            latencies = Latencies(duration: duration)
        }

        /// The `p`-th percentile (0…100) of the acknowledged requests' latency, seconds; NaN
        /// with none.
        public func percentile(_ p: Double) -> Double { latencies.percentile(p) }

        /// The longest acknowledged request's latency, seconds; NaN with none.
        public var maximum: Double { latencies.maximum }

        /// The `p`-th percentile of the latency of the requests sent in each 10 s window of the
        /// run (`Latencies.window(for:)`), in order, seconds; NaN for a window without any.
        public func percentileByWindow(_ p: Double) -> [Double] { latencies.percentileByWindow(p) }

        /// Records the latency (µs) of a request sent `sinceStart` after the run's start.
        mutating func record(latency microseconds: UInt64, sinceStart: TimeAmount) {
            latencies.record(microseconds, sinceStart: sinceStart)
        }

        mutating func add(_ other: Report) {
            sent += other.sent
            acknowledged += other.acknowledged
            acknowledgedFixes += other.acknowledgedFixes
            errors += other.errors
            reconnects += other.reconnects
            latencies.add(other.latencies)
            warmUpSent += other.warmUpSent
            warmUpAcknowledged += other.warmUpAcknowledged
            warmUpAcknowledgedFixes += other.warmUpAcknowledgedFixes
            warmUpErrors += other.warmUpErrors
        }

        public var description: String {
            func ms(_ v: Double) -> String { String(format: "%.2f", v * 1000) }
            func rate(_ n: Int) -> String { String(format: "%.0f", Double(n) / max(seconds, 1e-9)) }
            let fixes = acknowledgedFixes == acknowledged ? "" : ", fixes \(acknowledgedFixes) (\(rate(acknowledgedFixes))/s)"
            return "sent \(sent), acknowledged \(acknowledged) (\(rate(acknowledged))/s)\(fixes), errors \(errors), reconnects \(reconnects); "
                + "latency ms p50 \(ms(percentile(50))) p99 \(ms(percentile(99))) p99.9 \(ms(percentile(99.9))) max \(ms(maximum)); "
                + "\(latencies.p99ByWindow(of: "the run")); "
                + "connected in \(String(format: "%.1f", connectSeconds)) s before the start, "
                + "sending as they connected \(warmUpSent) requests, \(warmUpAcknowledged) acknowledged, \(warmUpErrors) errors"
        }
    }

    let options: Options
    public init(_ options: Options) { self.options = options }

    /// - Parameter started: marked when the devices are connected and the run's clock starts.
    public func run(started: LiveSubscribers.LoadStart? = nil) async throws -> Report {
        let (address, group, loops) = try Self.clientLoops(host: options.host, port: options.port, threads: options.threads)
        let plan = Plan(options: options, address: address)
        let shards = loops.map { Shard(loop: $0, plan: plan) }
        let connecting = NIODeadline.now()
        let start: NIODeadline
        do {
            try await EventLoopFuture.andAllSucceed(shards.enumerated().map { k, shard in
                shard.loop.flatSubmit { shard.connect(devices: Array(stride(from: k, to: options.devices, by: shards.count))) }
            }, on: loops[0]).get()
            start = NIODeadline.now()
            started?.mark(Date())
            let end = start + TimeAmount(options.duration)
            try await EventLoopFuture.andAllSucceed(shards.map { shard in
                shard.loop.flatSubmit { shard.run(start: start, end: end) }
            }, on: loops[0]).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        var total = Report(duration: options.duration)
        var lines: [ByteBuffer] = []
        for shard in shards {
            let (report, log) = try await shard.loop.submit { (shard.report, shard.log) }.get()
            total.add(report)
            lines.append(log)
        }
        total.seconds = Double((NIODeadline.now() - start).nanoseconds) / 1e9
        total.connectSeconds = Double((start - connecting).nanoseconds) / 1e9
        try await group.shutdownGracefully()
        if let path = options.ackLog {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            for chunk in lines { try chunk.withUnsafeReadableBytes { try log.write(contentsOf: $0) } }
            try log.synchronize()
            try log.close()
        }
        return total
    }
}

extension LoadGenerator {
    /// Runs the load and, with `live` (S subscribers following F devices each), `/live`
    /// subscribers beside it (``LiveSubscribers/Options/init(following:subscribers:follow:)``),
    /// on `liveServer` when given (another instance on the same database), else on the load's:
    /// `geo loadgen [--live S×F [--live-url URL]]`.
    /// - Returns: the load's report, and the subscribers' (nil without `live`) once they end.
    public func run(alongside live: (subscribers: Int, follow: Int)?, on liveServer: (host: String, port: Int)? = nil) async throws
        -> (load: Report, live: LiveSubscribers.Report?) {
        let loadStart = LiveSubscribers.LoadStart()
        let subscribers = live.map { s, f in
            var live = LiveSubscribers.Options(following: options, subscribers: s, follow: f)
            if let liveServer { (live.host, live.port) = liveServer }
            live.loadStart = loadStart
            return Task { [live] in try await LiveSubscribers(live).run() }
        }
        let report: Report
        do { report = try await run(started: loadStart) } catch {
            subscribers?.cancel()
            throw error
        }
        return (report, try await subscribers?.value)
    }

    /// A server's address, resolved, and an event-loop group of `threads` (at least 1) to reach
    /// it from, with its loops: the generator's devices and `LiveSubscribers` each run on one.
    static func clientLoops(host: String, port: Int, threads: Int) throws -> (SocketAddress, MultiThreadedEventLoopGroup, [any EventLoop]) {
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        return (address, group, Array(group.makeIterator()))
    }
}

/// What every device of a run shares.
private struct Plan: Sendable {
    let options: Options
    let address: SocketAddress
    /// Nanoseconds between a device's fixes.
    let period: Int64
    /// `Host` header value.
    let host: String
    /// The local addresses the devices connect from, one device after another (empty: the
    /// system's choice). On a server at an IPv4 loopback address, 127.0.0.1–127.0.0.8, as a fleet
    /// comes from many addresses: past about 14,000 connections from one address to one server,
    /// Linux's `connect` finds a free local port at about 1,000 a second (it hands out ports of
    /// one parity first, half of 32768–60999, then searches): 19,800 devices took 8–11 s to
    /// connect, 4–5 s from eight addresses. 19,000 plain connects to a bare acceptor (Python):
    /// 5.5 s from one address, 0.8 s from four.
    let sources: [SocketAddress]
    typealias Options = LoadGenerator.Options

    init(options: Options, address: SocketAddress) {
        self.options = options
        self.address = address
        self.period = max(1, TimeAmount(options.interval).nanoseconds)
        self.host = options.host.contains(":") ? "[\(options.host)]:\(options.port)" : "\(options.host):\(options.port)"
        if case .v4 = address, address.ipAddress?.hasPrefix("127.") == true {
            sources = (1...8).compactMap { try? SocketAddress(ipAddress: "127.0.0.\($0)", port: 0) }
        } else {
            sources = []
        }
    }

    /// `IP_BIND_ADDRESS_NO_PORT` (Linux 4.2): a bound socket takes its local port at `connect`,
    /// unique for the whole (local, remote) pair, not at `bind`, unique for the local address.
    static let bindAddressNoPort: ChannelOptions.Types.SocketOption? = {
        #if os(Linux)
        return .init(level: .ip, name: .init(rawValue: IP_BIND_ADDRESS_NO_PORT))
        #else
        return nil
        #endif
    }()
}

/// The devices of one event loop, their counts, latencies and log, touched on that loop only
/// (hence `@unchecked Sendable`: the closures that reach it all run on `loop`).
private final class Shard: @unchecked Sendable {
    let loop: any EventLoop
    let plan: Plan
    var report: LoadGenerator.Report
    /// The acknowledged fixes' log lines (`device,fix time in ms`).
    var log = ByteBuffer()
    /// The timed run's start and end, once every device has tried to connect.
    private(set) var start = NIODeadline.distantFuture, end = NIODeadline.distantFuture
    /// Whether the timed run has not begun: devices are still connecting.
    var beforeStart: Bool { start == .distantFuture }
    private var devices: [Device] = []
    /// The devices' turns: a hashed timer wheel of `tick`-wide slots (Varghese and Lauck 1987),
    /// each holding the positions in `devices` of those whose next send falls in it. One
    /// event-loop timer a tick drives it: a timer per device put every turn through NIO's heap of
    /// scheduled tasks (each a closure, copied as the heap moves it), 10–15 % of the
    /// generator's CPU time at 2,000 devices (`perf`). A turn runs at most a tick late.
    private var wheel: [[Int32]] = []
    /// The last tick (since `start`) whose slot was run; a spare slot array to swap in.
    private var ranTick: Int64 = -1, spare: [Int32] = []
    /// The wheel's slot width.
    static let tick = TimeAmount.milliseconds(1)
    /// Devices yet to finish their first connection attempt, then devices still running.
    private var waitingFor = 0
    private var done: EventLoopPromise<Void>?
    private var connecting = 0
    /// Devices waiting for a connection slot, first come first served from `queueHead`.
    private var queue: [Device] = [], queueHead = 0

    init(loop: any EventLoop, plan: Plan) {
        self.loop = loop
        self.plan = plan
        report = LoadGenerator.Report(duration: plan.options.duration)
    }

    /// Connects `indices`' devices; the future completes once each has tried once.
    func connect(devices indices: [Int]) -> EventLoopFuture<Void> {
        devices = indices.enumerated().map { Device(index: $1, position: Int32($0), shard: self) }
        return waitForAll { for device in devices { device.connect() } }
    }

    /// The timed run: the future completes when every device has ended.
    func run(start: NIODeadline, end: NIODeadline) -> EventLoopFuture<Void> {
        self.start = start
        self.end = end
        // A turn comes at most 1.1 periods after the last (the jitter), the first within one:
        // the slots span more, so a slot never holds turns of two rounds.
        wheel = Array(repeating: [], count: Int(plan.period * 11 / 10 / Self.tick.nanoseconds) + 3)
        // No new request after the end: those in flight may still be answered…
        loop.scheduleTask(deadline: end) { [self] in for device in devices { device.stop() } }
        // …until the drain is over, then they are given up.
        loop.scheduleTask(deadline: end + TimeAmount(plan.options.drain)) { [self] in
            for device in devices { device.abandon() }
        }
        return waitForAll {
            for device in devices { device.begin() }
            runWheel()
        }
    }

    /// Puts `device`'s next turn in the wheel: the first tick at or after `deadline`, and
    /// after the tick being run.
    func schedule(_ device: Device, at deadline: NIODeadline) {
        let tick = max(ranTick + 1, ((deadline - start).nanoseconds + Self.tick.nanoseconds - 1) / Self.tick.nanoseconds)
        wheel[Int(tick % Int64(wheel.count))].append(device.position)
    }

    /// Runs the turns of every tick that has come, then waits for the next until the end.
    private func runWheel() {
        let now = NIODeadline.now()
        guard now < end else { return }
        let due = (now - start).nanoseconds / Self.tick.nanoseconds
        while ranTick < due {
            ranTick += 1
            let slot = Int(ranTick % Int64(wheel.count))
            guard !wheel[slot].isEmpty else { continue }
            var turning = spare
            swap(&turning, &wheel[slot]) // out of the wheel while the turns put devices in its other slots
            for position in turning { devices[Int(position)].turn() }
            turning.removeAll(keepingCapacity: true)
            spare = turning
        }
        loop.scheduleTask(deadline: start + Self.tick * (ranTick + 1)) { self.runWheel() }
    }

    /// Runs `body`, then completes once `deviceDone` was called once per device.
    private func waitForAll(_ body: () -> Void) -> EventLoopFuture<Void> {
        let done = loop.makePromise(of: Void.self)
        self.done = done
        waitingFor = devices.count
        body()
        if devices.isEmpty { done.succeed() }
        return done.futureResult
    }

    /// A device tried its first connection, or ended its run.
    func deviceDone() {
        waitingFor -= 1
        if waitingFor == 0 { done?.succeed() }
    }

    /// Starts `device`'s connection attempt now if fewer than `connectsInFlight` are under
    /// way, else when one ends (`connectEnded`).
    func whenConnectSlotFree(_ device: Device) {
        if connecting < plan.options.connectsInFlight {
            connecting += 1
            device.attemptConnect()
        } else {
            queue.append(device)
        }
    }

    func connectEnded() {
        connecting -= 1
        if queueHead < queue.count {
            let next = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count { queue.removeAll(keepingCapacity: true); queueHead = 0 }
            connecting += 1
            next.attemptConnect()
        }
    }
}

/// One simulated device: its next send time, its fix waiting for an ack, its connection.
/// Touched on its shard's loop only.
private final class Device: @unchecked Sendable {
    let shard: Shard
    let name: String
    private var random: SplitMix64
    private var latitude: Double, longitude: Double
    private var nextSend = NIODeadline.distantFuture
    /// The first send's offset in the period, nanoseconds.
    private let phase: Int64
    /// Its position in its shard's devices.
    let position: Int32
    /// The request not yet acknowledged, and its fixes' times (ms since 1970): `count` of them,
    /// `step` apart from `first`.
    private var pending: (request: ByteBuffer, first: Int64, step: Int64, count: Int)?
    /// The last acknowledged request's buffer, cleared: the next request is written into it.
    private var spare: ByteBuffer?
    /// The last fix time the device sent (ms since 1970).
    private var lastFixTime = Int64.min / 2
    /// A Teltonika device's login is sent and not yet answered: no packet goes before it is.
    private var loggingIn = false
    /// A request body being written, reused (OwnTracks, GPSLogger): its length goes first.
    private var body = ByteBuffer()
    /// A turn came while the device could not send (connecting, or a request in flight).
    private var owed = false
    private var channel: (any Channel)?
    private var connecting = false
    /// Whether the attempt under way still holds one of the shard's connect slots (`slotHeld`).
    private var holdsConnectSlot = false
    private var triedOnce = false
    private var sentAt: NIODeadline?
    /// Whether the request in flight was sent before the timed run (`Report.warmUpSent`).
    private var sentBeforeStart = false
    private var connections = 0
    private var stopping = false, ended = false
    /// The request line's and headers' fixed parts (up to `Content-Length: ` for a request
    /// with a body), and what follows the changing fields of an OsmAnd request.
    private let prefix: [UInt8], suffix: [UInt8]
    /// The start of its lines in the acknowledgement log: `name,`.
    private let logPrefix: [UInt8]

    init(index: Int, position: Int32, shard: Shard) {
        let plan = shard.plan
        self.shard = shard
        self.position = position
        name = plan.options.deviceName(index)
        logPrefix = Array("\(name),".utf8)
        random = SplitMix64(seed: plan.options.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        phase = Int64(random.uniform(0, 1) * Double(plan.period))
        latitude = 48 + random.uniform(0, 1)
        longitude = 2 + random.uniform(0, 1)
        func post(_ path: String, _ type: String, _ headers: String = "") -> [UInt8] {
            Array("POST \(path) HTTP/1.1\r\nHost: \(plan.host)\r\n\(headers)Content-Type: \(type)\r\nContent-Length: ".utf8)
        }
        (prefix, suffix) = switch plan.options.wire {
        case .osmAnd: (Array("GET /?id=\(name)&lat=".utf8), Array("&hdop=5 HTTP/1.1\r\nHost: \(plan.host)\r\n\r\n".utf8))
        case .ownTracks:
            (post("/owntracks", "application/json", "X-Limit-U: \(name.dropLast("/phone".count))\r\nX-Limit-D: phone\r\n"), [])
        case .gpsLogger: (post("/gpslogger", "application/x-www-form-urlencoded"), [])
        case .overland: (post("/overland", "application/json"), [])
        case .teltonika: ([], [])
        }
    }

    var loop: any EventLoop { shard.loop }

    /// The timed run's start: the first turn at the device's phase.
    func begin() {
        nextSend = shard.start + .nanoseconds(phase)
        shard.schedule(self, at: nextSend)
    }

    /// The device's send time: a new fix unless the last is still unacknowledged. The next
    /// turn is put in the wheel unless it falls after the end (the shard stops every device
    /// at the end).
    func turn() {
        guard !stopping else { return }
        nextSend = nextSend + .nanoseconds(Int64(Double(shard.plan.period) * (0.9 + 0.2 * random.uniform(0, 1))))
        owed = true
        send()
        if nextSend < shard.end { shard.schedule(self, at: nextSend) }
    }

    private func send() {
        guard owed, sentAt == nil, !loggingIn, !stopping else { return }
        guard let channel else { connect(); return }
        if pending == nil {
            var request = spare ?? channel.allocator.buffer(capacity: prefix.count + suffix.count + 80)
            spare = nil
            pending = switch shard.plan.options.wire {
            case .osmAnd: makeFix(into: &request)
            case .overland(let batch): makeBatch(of: batch, into: &request)
            case .ownTracks: makeOwnTracks(into: &request)
            case .gpsLogger: makeGPSLogger(into: &request)
            case .teltonika(let extended): makePacket(extended: extended, into: &request)
            }
        }
        owed = false
        sentAt = .now()
        sentBeforeStart = shard.beforeStart
        if sentBeforeStart { shard.report.warmUpSent += 1 } else { shard.report.sent += 1 }
        channel.writeAndFlush(pending!.request, promise: nil)
    }

    /// A new fix's OsmAnd request, written into `request` (empty): the device's fixed prefix
    /// and suffix around the fields that change, their digits written straight into the buffer
    /// with the decimals every command writes (`JSONNumber`: coordinates 9, speed 3), where
    /// `Double.description` and string interpolation made 2–4 strings a request.
    private func makeFix(into request: inout ByteBuffer) -> (request: ByteBuffer, first: Int64, step: Int64, count: Int) {
        move(1e-4)
        let fixTime = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        request.writeBytes(prefix)
        request.writeDecimal(latitude, .coordinate)
        request.writeStaticString("&lon=")
        request.writeDecimal(longitude, .coordinate)
        request.writeStaticString("&timestamp=")
        request.writeDecimal(fixTime)
        request.writeStaticString("&speed=")
        request.writeDecimal(random.uniform(0, 1) * 20, .speed)
        request.writeBytes(suffix)
        return (request, fixTime, 0, 1)
    }

    /// An Overland batch of `count` fixes (the shape of Overland's README example), their times
    /// `interval` / `count` apart in whole milliseconds, the last now — or later, where the
    /// jitter brought this turn sooner than the last batch's span: a device's fix times never
    /// repeat, so the store's count per (device, time) tells a duplicate.
    private func makeBatch(of count: Int, into request: inout ByteBuffer) -> (request: ByteBuffer, first: Int64, step: Int64, count: Int) {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let step = max(1, shard.plan.period / 1_000_000 / Int64(count))
        let first = max(now - Int64(count - 1) * step, lastFixTime + step)
        var body = #"{"locations":["#
        for k in 0..<count {
            latitude += (random.uniform(0, 1) - 0.5) * 1e-5
            longitude += (random.uniform(0, 1) - 0.5) * 1e-5
            let time = first + Int64(k) * step
            let stamp = ISO8601Time.string(from: Date(timeIntervalSince1970: Double(time) / 1000), fractionDigits: 3)
            if k > 0 { body += "," }
            body += #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(longitude),\#(latitude)]},"#
                + #""properties":{"timestamp":"\#(stamp)","device_id":"\#(name)","horizontal_accuracy":5,"speed":\#(random.uniform(0, 1) * 20)}}"#
        }
        body += "]}"
        lastFixTime = first + Int64(count - 1) * step
        request.writeBytes(prefix)
        request.writeString("\(body.utf8.count)\r\n\r\n")
        request.writeString(body)
        return (request, first, step, count)
    }

    /// The next fix's time (ms since 1970): now, in whole `resolution`s, or one `resolution`
    /// after the last fix's where that is later, so that a device never repeats a fix time.
    private func nextFixTime(resolution: Int64) -> Int64 {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        lastFixTime = max(now / resolution * resolution, lastFixTime + resolution)
        return lastFixTime
    }

    /// The next fix's position: a step of up to `step` degrees from the last.
    private func move(_ step: Double) {
        latitude += (random.uniform(0, 1) - 0.5) * step
        longitude += (random.uniform(0, 1) - 0.5) * step
    }

    /// Writes `prefix`, the length of `body` and `body` (cleared after) into `request`.
    private func writePost(into request: inout ByteBuffer) {
        request.writeBytes(prefix)
        request.writeDecimal(Int64(body.readableBytes))
        request.writeStaticString("\r\n\r\n")
        request.writeImmutableBuffer(body)
        body.clear()
    }

    /// An OwnTracks `location` message; its `tst` (whole seconds) the send time's second, or
    /// the one after the last fix's.
    private func makeOwnTracks(into request: inout ByteBuffer) -> (request: ByteBuffer, first: Int64, step: Int64, count: Int) {
        move(1e-4)
        let seconds = nextFixTime(resolution: 1000) / 1000
        body.writeStaticString(#"{"_type":"location","tid":"lg","lat":"#)
        body.writeDecimal(latitude, .coordinate)
        body.writeStaticString(#","lon":"#)
        body.writeDecimal(longitude, .coordinate)
        body.writeStaticString(#","tst":"#)
        body.writeDecimal(seconds)
        body.writeStaticString(#","acc":5,"vel":"#)
        body.writeDecimal(Int64(random.uniform(0, 1) * 72))
        body.writeStaticString("}")
        writePost(into: &request)
        return (request, seconds * 1000, 0, 1)
    }

    /// A GPSLogger `%ALL` form: `time` in ISO 8601 with milliseconds.
    private func makeGPSLogger(into request: inout ByteBuffer) -> (request: ByteBuffer, first: Int64, step: Int64, count: Int) {
        move(1e-4)
        let time = nextFixTime(resolution: 1)
        body.writeStaticString("lat=")
        body.writeDecimal(latitude, .coordinate)
        body.writeStaticString("&lon=")
        body.writeDecimal(longitude, .coordinate)
        body.writeStaticString("&sat=9&alt=35&acc=5&dir=90&prov=gps&spd=")
        body.writeDecimal(random.uniform(0, 1) * 20, .speed)
        body.writeStaticString("&time=")
        body.writeString(ISO8601Time.string(from: Date(timeIntervalSince1970: Double(time) / 1000), fractionDigits: 3))
        body.writeStaticString("&ser=")
        body.writeString(name)
        writePost(into: &request)
        return (request, time, 0, 1)
    }

    /// A Teltonika packet of one record with a GPS element (9 satellites).
    private func makePacket(extended: Bool, into request: inout ByteBuffer) -> (request: ByteBuffer, first: Int64, step: Int64, count: Int) {
        move(1e-4)
        let time = nextFixTime(resolution: 1)
        let record = TeltonikaRecord(timestampMilliseconds: time, longitude: longitude, latitude: latitude, altitude: 35,
                                     angle: UInt16(random.uniform(0, 1) * 359), satellites: 9,
                                     speedKilometersPerHour: UInt16(random.uniform(0, 1) * 72), io: [0xEF: 1])
        request.writeBytes(Teltonika.packet([record], extended: extended))
        return (request, time, 0, 1)
    }

    /// Connects when a connection slot of the shard is free.
    func connect() {
        guard channel == nil, !connecting, !stopping else { return }
        connecting = true
        shard.whenConnectSlotFree(self)
    }

    /// How long an attempt holds its connect slot at most. A SYN that a server's full accept queue
    /// dropped is sent again after 1 s; held until then, 128 such attempts took every slot, and
    /// no device of the fleet connected for that second, where devices of their own would go on
    /// (19,700 devices, a server killed and started again: 0.6–0.9 s pauses with no new connection).
    static let slotHeld = TimeAmount.milliseconds(50)

    func attemptConnect() {
        holdsConnectSlot = true
        let giveUpSlot = loop.scheduleTask(in: Self.slotHeld) { self.releaseConnectSlot() }
        let bootstrap = ClientBootstrap(group: loop)
        let sources = shard.plan.sources
        if !sources.isEmpty {
            if let option = Plan.bindAddressNoPort { _ = bootstrap.channelOption(option, value: 1) }
            _ = bootstrap.bind(to: sources[Int(position) % sources.count])
        }
        bootstrap
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if self.shard.plan.options.wire.logsIn {
                        try channel.pipeline.syncOperations.addHandler(TeltonikaReplyHandler(device: self))
                    } else {
                        try channel.pipeline.syncOperations.addHandler(ResponseHandler(device: self))
                    }
                }
            }
            .connect(to: shard.plan.address)
            .whenComplete { result in
                giveUpSlot.cancel()
                self.connecting = false
                self.releaseConnectSlot()
                // A Teltonika device has tried once when its login is answered (or its
                // connection ends before): its first fix, sent after the login, is still one
                // before the timed run.
                let loggingIn = if case .success(let channel) = result, channel.isActive { self.shard.plan.options.wire.logsIn } else { false }
                if !loggingIn { self.firstTryEnded() }
                switch result {
                case .success(let channel):
                    guard channel.isActive else { self.retryConnect(); return } // closed already: `closed` ignored it
                    self.channel = channel
                    // channelInactive does not reach the handler of every channel that closes
                    // (seen: thousands of 19,900 devices whose connections the server closed
                    // while they were idle kept a dead channel and never reconnected); the close
                    // future always completes. `closed` acts once per channel.
                    channel.closeFuture.whenComplete { _ in self.closed(channel) }
                    self.connections += 1
                    if self.connections > 1 { self.shard.report.reconnects += 1 }
                    // Connected before the timed run: the first fix now (see `LoadGenerator`).
                    if self.connections == 1, self.shard.beforeStart { self.owed = true }
                    if self.stopping {
                        channel.close(promise: nil)
                    } else if self.shard.plan.options.wire.logsIn {
                        self.loggingIn = true
                        channel.writeAndFlush(ByteBuffer(bytes: Teltonika.login(imei: self.name)), promise: nil)
                    } else {
                        self.send()
                    }
                case .failure:
                    self.retryConnect()
                }
            }
    }

    /// The device's first connection attempt has ended: the shard may start once every device's has.
    private func firstTryEnded() {
        guard !triedOnce else { return }
        triedOnce = true
        shard.deviceDone()
    }

    private func releaseConnectSlot() {
        guard holdsConnectSlot else { return }
        holdsConnectSlot = false
        shard.connectEnded()
    }

    /// The server is down or restarting: connect again in 100–200 ms.
    private func retryConnect() {
        guard !stopping else { endIfIdle(); return }
        loop.scheduleTask(in: .milliseconds(100 + Int64(random.uniform(0, 100)))) { self.connect() }
    }

    /// A Teltonika login's answer: packets may go once it is accepted. A refusal counts as an
    /// error, and the device connects and logs in again.
    func loginAnswered(accepted: Bool, on channel: any Channel) {
        guard channel === self.channel, loggingIn else { channel.close(promise: nil); return } // an answer nobody asked for
        loggingIn = false
        firstTryEnded()
        if accepted { send() } else { countError(); channel.close(promise: nil) }
    }

    /// The reply to the request in flight: `acknowledged` (a 2xx status, a Teltonika count of
    /// every record sent) or not; `closes` when the server ends the connection after it.
    func received(acknowledged: Bool, closes: Bool, on channel: any Channel) {
        guard channel === self.channel, let sentAt else { channel.close(promise: nil); return } // a reply nobody asked for
        self.sentAt = nil
        if acknowledged, let (first, step, count) = pending.map({ ($0.first, $0.step, $0.count) }) {
            if sentBeforeStart {
                shard.report.warmUpAcknowledged += 1
                shard.report.warmUpAcknowledgedFixes += count
            } else {
                let latency = NIODeadline.now() - sentAt
                shard.report.record(latency: UInt64(max(1, latency.nanoseconds / 1000)), sinceStart: sentAt - shard.start)
                shard.report.acknowledged += 1
                shard.report.acknowledgedFixes += count
            }
            for k in 0..<count {
                shard.log.writeBytes(logPrefix)
                shard.log.writeDecimal(first + Int64(k) * step)
                shard.log.writeInteger(UInt8(ascii: "\n"))
            }
            // Answered, so the channel holds the request no more: its storage is reused (the
            // only reference left once `pending` lets it go, so clearing it copies nothing).
            var request = pending!.request
            pending = nil
            request.clear()
            spare = request
        } else {
            countError()
        }
        if closes || stopping {
            channel.close(promise: nil)
        } else {
            send() // a turn that came during the request
        }
    }

    /// The connection ended (the server closed it, or it broke): a request in flight is lost
    /// and sent again at the next turn; connect again unless the run is over.
    func closed(_ channel: any Channel) {
        guard channel === self.channel else { return }
        self.channel = nil
        loggingIn = false
        firstTryEnded()
        if sentAt != nil {
            sentAt = nil
            countError()
            owed = true
        }
        if stopping { endIfIdle() } else { retryConnect() }
    }

    /// The request in flight failed: an error of the timed run, or of the warm-up.
    private func countError() {
        if sentBeforeStart { shard.report.warmUpErrors += 1 } else { shard.report.errors += 1 }
    }

    /// The run's end: no new request; the one in flight may still be answered.
    func stop() {
        guard !stopping else { return }
        stopping = true
        if sentAt == nil { channel?.close(promise: nil) }
        endIfIdle()
    }

    /// The drain is over: close what is still open.
    func abandon() {
        stopping = true
        channel?.close(promise: nil)
        endIfIdle()
    }

    private func endIfIdle() {
        guard stopping, channel == nil, !connecting, !ended else { return }
        ended = true
        shard.deviceDone()
    }
}

/// Frames a device's replies and hands each to it.
private final class ResponseHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let device: Device
    private var scanner = HTTPResponseScanner()

    init(device: Device) { self.device = device }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        do {
            while let response = try scanner.next(&buffer) {
                device.received(acknowledged: (200..<300).contains(response.status), closes: response.closes, on: context.channel)
            }
        } catch {
            context.close(promise: nil) // unframable: the request in flight counts as lost
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let response = try? scanner.end() {
            device.received(acknowledged: (200..<300).contains(response.status), closes: response.closes, on: context.channel)
        }
        device.closed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Reads a Teltonika device's replies: the login's one byte (0x01 accepted), then for each
/// packet its count of records stored, 4 bytes big-endian; a packet of one record is
/// acknowledged by a count of 1, anything else is not.
private final class TeltonikaReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let device: Device
    private var loggedIn = false
    private var pending = ByteBuffer()

    init(device: Device) { self.device = device }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending.writeBuffer(&buffer)
        while true {
            if !loggedIn {
                guard let answer = pending.readInteger(as: UInt8.self) else { break }
                loggedIn = answer == 1
                device.loginAnswered(accepted: loggedIn, on: context.channel)
            } else {
                guard let count = pending.readInteger(as: UInt32.self) else { break }
                device.received(acknowledged: count == 1, closes: false, on: context.channel)
            }
        }
        pending.discardReadBytes()
    }

    func channelInactive(context: ChannelHandlerContext) {
        device.closed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// `geo loadgen verify`: compares a load generator's log of acknowledged fixes with the store.
public enum LoadVerifier {
    public struct Result: Sendable, CustomStringConvertible {
        public var acknowledged = 0
        /// Acknowledged fixes not in the store: must be 0.
        public var missing = 0
        /// Acknowledged fixes stored more than once: must be 0.
        public var duplicated = 0
        public var description: String { "acknowledged \(acknowledged), acknowledged-but-missing \(missing), duplicated \(duplicated)" }
    }

    /// Reads the log (`device,fix time ms` lines) and the logged devices' fix times from
    /// `store` in one read (`PositionStore.fixTimes`, from the first logged fix time to the
    /// last), counting those at each logged time; a fix logged twice (acknowledged twice) is
    /// counted each time.
    public static func verify(log path: String, store: any PositionStore) async throws -> Result {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var logged: [String: [Int64]] = [:]
        var result = Result()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ",")
            guard parts.count == 2, let time = Int64(parts[1]) else { continue }
            result.acknowledged += 1
            logged[String(parts[0]), default: []].append(time)
        }
        let all = logged.values.joined()
        guard let first = all.min(), let last = all.max() else { return result }
        let storedTimes = try await store.fixTimes(of: Array(logged.keys), from: first, to: last + 1)
        for (device, times) in logged {
            var stored: [Int64: Int] = [:]
            for time in storedTimes[device] ?? [] { stored[time, default: 0] += 1 }
            for time in times {
                let count = stored[time] ?? 0
                if count == 0 { result.missing += 1 } else if count > 1 { result.duplicated += 1 }
            }
        }
        return result
    }
}

extension LoadGenerator.Options {
    /// The host and port of a server's base URL `http://HOST:PORT/` (an IPv6 host in
    /// brackets, `http://[::1]:5055/`), with `scheme` instead of `http` where given, or nil for a
    /// URL of another form.
    public static func hostAndPort(of url: String, scheme: String = "http") -> (host: String, port: Int)? {
        guard url.hasPrefix("\(scheme)://") else { return nil }
        let authority = url.dropFirst(scheme.count + 3).prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}

private extension ByteBuffer {
    /// Writes `value` in decimal digits (`JSONNumber.withText(ofInteger:_:)`, no string made).
    mutating func writeDecimal(_ value: Int64) {
        JSONNumber.withText(ofInteger: value) { writeBytes($0) }
    }

    /// Writes `value` with `quantity`'s decimals (`JSONNumber.withText(of:_:_:)`, no string made).
    mutating func writeDecimal(_ value: Double, _ quantity: JSONNumber.Quantity) {
        JSONNumber.withText(of: value, quantity) { writeBytes($0) }
    }
}
