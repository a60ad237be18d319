import Foundation
import GeoBase
import NIOCore
import NIOHTTP1
import NIOPosix

/// `geo loadgen`: N simulated devices sending OsmAnd requests to a tracking server over
/// keep-alive HTTP/1.1 connections (one per device), each at `rate` with a random phase and
/// ±10 % jitter, every fix acknowledged (HTTP 200) written to a log. A fix that is not
/// acknowledged (an error status, a lost connection) is sent again, reconnecting, until it is or
/// the run ends, so that after a server crash the log and the store can be compared.
public struct LoadGenerator: Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var devices: Int
        /// Seconds between a device's fixes (1 s: 1 Hz).
        public var interval: Duration = .seconds(1)
        public var duration: Duration
        /// Device names are this prefix and a number.
        public var devicePrefix = "loadgen-"
        /// The acknowledged fixes' log: `device,fix time in ms` a line.
        public var ackLog: String?
        public var seed: UInt64 = 1

        public init(host: String, port: Int, devices: Int, duration: Duration) {
            self.host = host
            self.port = port
            self.devices = devices
            self.duration = duration
        }
    }

    /// What a run measured.
    public struct Report: Sendable, CustomStringConvertible {
        public var sent = 0
        public var acknowledged = 0
        /// Replies other than 200, and requests lost with their connection.
        public var errors = 0
        public var reconnects = 0
        /// Request → acknowledgement latencies of the acknowledged requests, seconds, sorted.
        public var latencies: [Double] = []
        public var seconds = 0.0

        public func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)]
        }

        public var description: String {
            func ms(_ v: Double) -> String { String(format: "%.2f", v * 1000) }
            return "sent \(sent), acknowledged \(acknowledged) (\(String(format: "%.0f", Double(acknowledged) / max(seconds, 1e-9)))/s), errors \(errors), reconnects \(reconnects); "
                + "latency ms p50 \(ms(percentile(50))) p99 \(ms(percentile(99))) p99.9 \(ms(percentile(99.9))) max \(ms(latencies.last ?? .nan))"
        }
    }

    let options: Options
    public init(_ options: Options) { self.options = options }

    public func run() async throws -> Report {
        let start = ContinuousClock.now
        let end = start + options.duration
        let log = try options.ackLog.map { path -> FileHandle in
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        let reports = await withTaskGroup(of: (Report, [UInt8]).self) { group in
            for index in 0..<options.devices {
                group.addTask { await device(index, end: end) }
            }
            var all: [(Report, [UInt8])] = []
            for await r in group {
                all.append(r)
            }
            return all
        }
        var total = Report()
        for (r, lines) in reports {
            total.sent += r.sent
            total.acknowledged += r.acknowledged
            total.errors += r.errors
            total.reconnects += r.reconnects
            total.latencies += r.latencies
            try log?.write(contentsOf: lines)
        }
        try log?.synchronize()
        try log?.close()
        total.latencies.sort()
        total.seconds = Double((ContinuousClock.now - start).components.seconds)
        return total
    }

    /// One device's loop; returns its report and its acknowledged-fix log lines.
    func device(_ index: Int, end: ContinuousClock.Instant) async -> (Report, [UInt8]) {
        var random = SplitMix64(seed: options.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        let name = "\(options.devicePrefix)\(index)", host = "\(options.host):\(options.port)"
        let period = Double(options.interval.components.seconds) + Double(options.interval.components.attoseconds) / 1e18
        var report = Report(), lines: [UInt8] = []
        var next = ContinuousClock.now + .seconds(random.uniform(0, 1) * period)
        var latitude = 48 + random.uniform(0, 1), longitude = 2 + random.uniform(0, 1)
        var pending: (query: String, fixTime: Int64)?
        var connections = 0
        while ContinuousClock.now < end {
            do {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.seconds(2))
                    .connect(host: options.host, port: options.port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                        }
                    }
                connections += 1
                try await channel.executeThenClose { inbound, outbound in
                    var responses = inbound.makeAsyncIterator()
                    while true {
                        try? await Task.sleep(until: next, clock: .continuous)
                        next = next + .seconds(period * (0.9 + 0.2 * random.uniform(0, 1)))
                        guard ContinuousClock.now < end else { return }
                        if pending == nil {
                            latitude += (random.uniform(0, 1) - 0.5) * 1e-4
                            longitude += (random.uniform(0, 1) - 0.5) * 1e-4
                            let fixTime = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                            pending = ("/?id=\(name)&lat=\(latitude)&lon=\(longitude)&timestamp=\(fixTime)&speed=\(random.uniform(0, 1) * 20)&hdop=5", fixTime)
                        }
                        guard let fix = pending else { continue }
                        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: fix.query)
                        head.headers.add(name: "Host", value: host)
                        report.sent += 1
                        let sentAt = ContinuousClock.now
                        try await outbound.write(.head(head))
                        try await outbound.write(.end(nil))
                        var status = 0
                        reading: while true {
                            guard let part = try await responses.next() else { throw ConnectionClosed() }
                            switch part {
                            case .head(let response): status = Int(response.status.code)
                            case .body: continue
                            case .end: break reading
                            }
                        }
                        if status == 200 {
                            let latency = ContinuousClock.now - sentAt
                            report.latencies.append(Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18)
                            report.acknowledged += 1
                            lines += Array("\(name),\(fix.fixTime)\n".utf8)
                            pending = nil
                        } else {
                            report.errors += 1
                        }
                    }
                }
            } catch {
                report.errors += pending == nil ? 0 : 1
                // The server is down or restarting: try again shortly.
                try? await Task.sleep(for: .milliseconds(100 + Int(random.uniform(0, 1) * 100)))
            }
        }
        report.reconnects = max(0, connections - 1)
        return (report, lines)
    }

    struct ConnectionClosed: Error {}
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

    /// Reads the log (`device,fix time ms` lines) and looks each fix up in `store`.
    public static func verify(log path: String, store: any PositionStore) async throws -> Result {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var result = Result()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ",")
            guard parts.count == 2, let time = Int64(parts[1]) else { continue }
            result.acknowledged += 1
            let count = try await store.count(device: String(parts[0]), fixTime: time)
            if count == 0 { result.missing += 1 } else if count > 1 { result.duplicated += 1 }
        }
        return result
    }
}

extension LoadGenerator.Options {
    /// The host and port of a server's base URL `http://HOST:PORT/` (an IPv6 host in
    /// brackets, `http://[::1]:5055/`), or nil for a URL of another form.
    public static func hostAndPort(of url: String) -> (host: String, port: Int)? {
        guard url.hasPrefix("http://") else { return nil }
        let authority = url.dropFirst(7).prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}
