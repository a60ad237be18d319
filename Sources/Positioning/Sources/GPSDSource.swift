import Foundation
import GeoCore
import NMEACodec
import SystemIO

/// Positions from a gpsd daemon over its JSON protocol (gpsd_json(5)): connects, sends
/// `?WATCH={"enable":true,"json":true}` and turns each TPV into a fix.
///
/// gpsd's error figures are 95 % values; `GPSDMessage.TPV.location` converts them to the 68 %
/// accuracies of `Location` (÷ 2.4477 horizontally, ÷ 1.96 per axis). A TPV without a fix
/// (mode 0 or 1) reports `.lost` once. When gpsd is not there or goes away, the source reports
/// `.lost` and reconnects with exponential backoff (`initialBackoff` doubling up to
/// `maximumBackoff`) on its clock, forever, until its consumer leaves.
public final class GPSDSource: PositionSource {
    public let host: String
    public let port: Int
    public let initialBackoff: Duration
    public let maximumBackoff: Duration
    private let clock: SourceClock
    private let runs = RunCounter()

    public init(host: String = "127.0.0.1", port: Int = 2947, initialBackoff: Duration = .milliseconds(250),
                maximumBackoff: Duration = .seconds(8), clock: SourceClock = .continuous) {
        self.host = host
        self.port = port
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.clock = clock
    }

    public var name: String { "gpsd://\(host):\(port)" }

    /// The number of runs currently connected or reconnecting.
    public var activeRuns: Int { runs.value }

    /// Whether a gpsd answers on `host:port` right now (connects and disconnects).
    public static func isReachable(host: String = "127.0.0.1", port: Int = 2947) -> Bool {
        guard let fd = try? TCPClient.connect(host: host, port: port) else { return false }
        try? fd.close()
        return true
    }

    public func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        runs.stream { [self] output in
            var backoff = initialBackoff
            var lost = false
            func reportLost() {
                if !lost { output.yield(.lost) }
                lost = true
            }
            while true {
                try Task.checkCancellation()
                let fd: FileDescriptor
                do {
                    fd = try TCPClient.connect(host: host, port: port)
                } catch {
                    reportLost()
                    try await clock.sleep(for: backoff)
                    backoff = min(backoff * 2, maximumBackoff)
                    continue
                }
                backoff = initialBackoff
                try? fd.writeAll(GPSDMessage.watchCommand())
                var lines = LineSplitter()
                do {
                    for try await chunk in DescriptorReader(fd).chunks() {
                        lines.append(chunk) { line in
                            // Lines gpsd sends are JSON objects; anything else (or a class we do
                            // not model) is skipped: one bad report costs only itself.
                            guard case .tpv(let tpv)? = try? GPSDMessage(json: line) else { return }
                            if let location = tpv.location {
                                lost = false
                                output.yield(.location(location))
                            } else if tpv.mode <= 1 {
                                reportLost()
                            }
                        }
                    }
                } catch {
                    // A read error is the daemon going away, like end of stream: reconnect.
                }
                try Task.checkCancellation()
                reportLost()
                try await clock.sleep(for: backoff)
            }
        }
    }
}

/// Splits a byte stream into text lines (LF or CRLF), carrying a partial line across chunks;
/// a line longer than `maximumLength` bytes is dropped, so garbage cannot grow memory.
struct LineSplitter {
    private var partial: [UInt8] = []
    private var overflowed = false
    let maximumLength: Int

    init(maximumLength: Int = 1 << 20) { self.maximumLength = maximumLength }

    mutating func append(_ chunk: [UInt8], _ onLine: (String) -> Void) {
        var start = chunk.startIndex
        for i in chunk.indices where chunk[i] == UInt8(ascii: "\n") {
            partial.append(contentsOf: chunk[start..<i])
            if !overflowed {
                if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
                onLine(String(decoding: partial, as: UTF8.self))
            }
            partial.removeAll(keepingCapacity: true)
            overflowed = false
            start = i + 1
        }
        partial.append(contentsOf: chunk[start...])
        if partial.count > maximumLength {
            partial.removeAll(keepingCapacity: false)
            overflowed = true
        }
    }
}
