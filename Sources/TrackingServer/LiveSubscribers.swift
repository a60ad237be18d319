import Platform
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// `geo loadgen --live S×F`: S WebSocket subscribers on a tracking server's `/live`, subscriber k
/// following the generator's devices k·F … k·F + F − 1 modulo the device count (as
/// Benchmarks/tracking-live.py does), each reading every message on a SwiftNIO event loop and
/// timing each fix from its time (`"time"`, ISO 8601 with milliseconds) to its arrival: an upper
/// bound of ack → delivery. Two Python processes reading 1,000 subscribers took more CPU than the
/// server's fan-out to them (21.5 against about 10 s, README); these clients read the frames'
/// bytes without a JSON parser. Pings are answered (masked pongs, RFC 6455 §5.5.3), the first
/// message (latest positions) is not timed, nor are the fixes sent before the load's start.
public struct LiveSubscribers: Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var subscribers: Int
        /// Devices each subscriber follows.
        public var follow: Int
        /// The generator's devices, and the name of each by its index (by default an OsmAnd
        /// load's, `LoadGenerator.Options.deviceName(_:)`).
        public var devices: Int
        public var deviceName: @Sendable (Int) -> String
        public var duration: Duration
        /// Event-loop threads of the subscribers.
        public var threads = 1
        /// When the load began (nil: time every fix): the fixes sent before it, each device's
        /// first as it connected, are counted apart and not timed, as the load's report leaves
        /// their requests out (`LoadGenerator.Report.warmUpSent`).
        public var loadStart: LoadStart?

        public init(host: String, port: Int, subscribers: Int, follow: Int, devices: Int, duration: Duration) {
            self.host = host
            self.port = port
            self.subscribers = subscribers
            self.follow = follow
            self.devices = devices
            self.duration = duration
            let load = LoadGenerator.Options(host: host, port: port, devices: devices, duration: duration)
            deviceName = { load.deviceName($0) }
        }

        /// `subscribers` following `follow` devices each of the load `load` sends (its server,
        /// device count and names), reading for the load's duration and its drain, so that the
        /// fixes acknowledged last are still delivered: `geo loadgen --live S×F`.
        public init(following load: LoadGenerator.Options, subscribers: Int, follow: Int) {
            self.init(host: load.host, port: load.port, subscribers: subscribers, follow: follow, devices: load.devices,
                      duration: load.duration + load.drain)
            deviceName = { [load] in load.deviceName($0) }
        }

        /// `S×F` (or `SxF`): S subscribers following F devices each; nil when it is not that.
        public static func counts(_ spec: String) -> (subscribers: Int, follow: Int)? {
            let parts = spec.split(whereSeparator: { $0 == "x" || $0 == "×" })
            guard parts.count == 2, let s = Int(parts[0]), let f = Int(parts[1]), s > 0, f > 0 else { return nil }
            return (s, f)
        }
    }

    /// When a load began, µs since 1970, once it has (`LoadGenerator.run(started:)`).
    public final class LoadStart: Sendable {
        let microseconds = Atomic<Int64>(.max)
        public init() {}

        func mark(_ date: Date) { microseconds.store(Int64(date.timeIntervalSince1970 * 1_000_000), ordering: .relaxed) }
    }

    /// What the subscribers received.
    public struct Report: Sendable, CustomStringConvertible {
        /// Fix time → arrival, by arrival since the subscribers began to connect.
        var delays = Latencies()
        public var messages = 0
        public var fixes = 0
        /// Fixes sent before the load's start (`Options.loadStart`), in `fixes` but not timed.
        public var warmUpFixes = 0
        /// Subscribers whose upgrade was refused or whose connection failed or ended early.
        public var failed = 0
        var subscribers = 0, follow = 0

        public init() {}

        init(duration: Duration) { delays = Latencies(duration: duration) }

        /// The `p`-th percentile (0…100) of fix time → arrival, seconds; NaN with none.
        public func percentile(_ p: Double) -> Double { delays.percentile(p) }

        mutating func add(_ other: Report) {
            delays.add(other.delays)
            messages += other.messages
            fixes += other.fixes
            warmUpFixes += other.warmUpFixes
            failed += other.failed
        }

        public var description: String {
            func ms(_ v: Double) -> String { String(format: "%.1f", v * 1000) }
            let warmUp = warmUpFixes == 0 ? "" : " (\(warmUpFixes) sent before the load's start, not timed)"
            return "live: \(subscribers) subscribers × \(follow) devices: \(fixes) fixes in \(messages) messages\(warmUp), "
                + "fix time → delivery ms p50 \(ms(percentile(50))) p99 \(ms(percentile(99))) max \(ms(delays.maximum)), "
                + "\(delays.p99ByWindow(of: "arrival")); \(failed) subscribers failed"
        }
    }

    let options: Options
    public init(_ options: Options) { self.options = options }

    /// Connects every subscriber, reads for `duration`, then closes them.
    public func run() async throws -> Report {
        let (address, group, loops) = try LoadGenerator.clientLoops(host: options.host, port: options.port, threads: options.threads)
        let started = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let tallies = loops.map { _ in Tally(started: started, duration: options.duration, loadStart: options.loadStart) }
        var channels: [any Channel] = []
        var total = Report(duration: options.duration)
        for k in 0..<options.subscribers {
            let names = (0..<options.follow).map { options.deviceName((k * options.follow + $0) % max(1, options.devices)) }
            let request = "GET /live?devices=\(names.joined(separator: ",")) HTTP/1.1\r\nHost: \(options.host):\(options.port)\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            let tally = tallies[k % loops.count]
            do {
                let channel = try await ClientBootstrap(group: loops[k % loops.count])
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(SubscriberHandler(tally: tally)) }
                    }
                    .connect(to: address).get()
                channel.writeAndFlush(ByteBuffer(string: request), promise: nil)
                channels.append(channel)
            } catch {
                total.failed += 1
            }
        }
        try await Task.sleep(for: options.duration)
        for (tally, loop) in zip(tallies, loops) { try await loop.submit { tally.ending = true }.get() }
        for channel in channels { try? await channel.close() }
        for (tally, loop) in zip(tallies, loops) { total.add(try await loop.submit { tally.report }.get()) }
        try await group.shutdownGracefully()
        total.subscribers = options.subscribers
        total.follow = options.follow
        return total
    }
}

/// One event loop's counts, touched on that loop only (hence `@unchecked Sendable`).
final class Tally: @unchecked Sendable {
    var report: LiveSubscribers.Report
    /// When the subscribers began to connect, µs since 1970: arrivals are windowed from it.
    let started: Int64
    let loadStart: LiveSubscribers.LoadStart?
    /// The run is over: connections closing now did not fail.
    var ending = false

    init(started: Int64, duration: Duration, loadStart: LiveSubscribers.LoadStart?) {
        self.started = started
        self.loadStart = loadStart
        report = LiveSubscribers.Report(duration: duration)
    }
}

/// One subscriber: the upgrade reply, then frames (a server's are not masked, RFC 6455 §5.2).
final class SubscriberHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let tally: Tally
    var buffer = ByteBuffer()
    var upgraded = false
    /// Text messages seen; the first (latest positions) is not timed.
    var texts = 0
    /// Counted as failed already.
    var failed = false

    init(tally: Tally) { self.tally = tally }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        if !upgraded {
            guard let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = buffer.readString(length: end.upperBound - buffer.readerIndex) ?? ""
            guard head.hasPrefix("HTTP/1.1 101") else { return fail(context) }
            upgraded = true
        }
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        while let frame = nextFrame() {
            switch frame.opcode {
            case 0x1:
                texts += 1
                tally.report.messages += texts > 1 ? 1 : 0
                if texts > 1 { time(frame.payload, arrival: now) }
            case 0x9: pong(context, frame.payload)
            case 0x8: return fail(context)
            default: break
            }
        }
        buffer.discardReadBytes()
    }

    func channelInactive(context: ChannelHandlerContext) {
        count()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { fail(context) }

    private func fail(_ context: ChannelHandlerContext) {
        count()
        context.close(promise: nil)
    }

    /// Counts this subscriber as failed, once, unless the run is over.
    private func count() {
        guard !failed, !tally.ending else { return }
        failed = true
        tally.report.failed += 1
    }

    /// The next whole frame in `buffer`, consumed; nil until one is whole.
    private func nextFrame() -> (opcode: UInt8, payload: ByteBuffer)? {
        let view = buffer.readableBytesView
        guard view.count >= 2 else { return nil }
        let first = view[view.startIndex], second = view[view.startIndex + 1]
        var length = Int(second & 0x7F), header = 2
        if length == 126 {
            guard view.count >= 4 else { return nil }
            (length, header) = (Int(view[view.startIndex + 2]) << 8 | Int(view[view.startIndex + 3]), 4)
        } else if length == 127 {
            guard view.count >= 10 else { return nil }
            (length, header) = (view[(view.startIndex + 2)..<(view.startIndex + 10)].reduce(0) { $0 << 8 | Int($1) }, 10)
        }
        guard view.count >= header + length else { return nil }
        buffer.moveReaderIndex(forwardBy: header)
        return (first & 0x0F, buffer.readSlice(length: length)!)
    }

    /// Records arrival − fix time for every `"time":"YYYY-MM-DDTHH:MM:SS.mmmZ"` in a message.
    private func time(_ payload: ByteBuffer, arrival: Int64) {
        let key = Array(#""time":""#.utf8)
        payload.withUnsafeReadableBytes { bytes in
            var i = 0
            while i + key.count + 24 <= bytes.count {
                guard bytes[i] == key[0], (0..<key.count).allSatisfy({ bytes[i + $0] == key[$0] }) else { i += 1; continue }
                i += key.count
                if let ms = Self.unixMilliseconds(bytes, at: i) {
                    tally.report.fixes += 1
                    if let start = tally.loadStart, ms * 1000 < start.microseconds.load(ordering: .relaxed) {
                        tally.report.warmUpFixes += 1
                        continue
                    }
                    tally.report.delays.record(UInt64(max(1, arrival - ms * 1000)), sinceStart: .microseconds(arrival - tally.started))
                }
            }
        }
    }

    /// Milliseconds since 1970 of `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC) at `i`; nil when it is not that.
    static func unixMilliseconds(_ b: UnsafeRawBufferPointer, at i: Int) -> Int64? {
        func number(_ from: Int, _ count: Int) -> Int64? {
            var n: Int64 = 0
            for k in from..<(from + count) {
                let d = b[i + k] &- 0x30
                guard d < 10 else { return nil }
                n = n * 10 + Int64(d)
            }
            return n
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2), let millis = number(20, 3), b[i + 23] == UInt8(ascii: "Z") else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    }

    /// Answers a ping with a pong of its payload, masked as a client's frames must be.
    private func pong(_ context: ChannelHandlerContext, _ payload: ByteBuffer) {
        var frame = context.channel.allocator.buffer(capacity: 6 + payload.readableBytes)
        frame.writeInteger(UInt8(0x8A))
        frame.writeInteger(UInt8(0x80 | UInt8(min(payload.readableBytes, 125))))
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame.writeBytes(mask)
        for (k, byte) in payload.readableBytesView.prefix(125).enumerated() { frame.writeInteger(byte ^ mask[k % 4]) }
        context.writeAndFlush(NIOAny(frame), promise: nil)
    }
}
