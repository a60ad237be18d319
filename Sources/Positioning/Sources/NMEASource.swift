import Foundation
import GeoCore
public import NMEACodec
import SystemIO

/// Positions decoded from an NMEA 0183 byte stream: a file, standard input, a TCP endpoint or a
/// serial device. Each reporting cycle becomes one fix (`NMEADecoder`, gpsd's epoch rules); a
/// cycle without a fix reports `.lost` once.
///
/// A serial device without read permission fails with `PositioningError.denied` (the manager
/// stops and reports `denied` authorization); a missing device or refused connection fails with
/// `.sourceUnavailable`; a stream that ends (a file, a closed connection) ends the run.
public final class NMEASource: PositionSource {
    /// Where the sentences come from.
    public enum Input: Sendable, Hashable {
        case file(String)
        case standardInput
        case tcp(host: String, port: Int)
        case serial(path: String, baud: Int)
    }

    public let input: Input
    public let options: NMEADecoder.Options
    /// Replay pacing by fix timestamps; nil delivers fixes as fast as they decode (right for
    /// live devices, whose pace is the receiver's).
    public let pacing: GPXReplaySource.Pacing?
    private let clock: SourceClock
    private let runs = RunCounter()

    public init(_ input: Input, options: NMEADecoder.Options = .init(), pacing: GPXReplaySource.Pacing? = nil,
                clock: SourceClock = .continuous) {
        self.input = input
        self.options = options
        self.pacing = pacing
        self.clock = clock
    }

    public var name: String {
        switch input {
        case .file(let path): "nmea:\(path)"
        case .standardInput: "nmea:-"
        case .tcp(let host, let port): "nmea+tcp://\(host):\(port)"
        case .serial(let path, let baud): "nmea://\(path)?baud=\(baud)"
        }
    }

    /// The number of runs currently reading.
    public var activeRuns: Int { runs.value }

    public func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        runs.stream(bufferingPolicy: .bufferingNewest(4096)) { [self] output in
            let fd: FileDescriptor
            do throws(SystemIOError) {
                fd = switch input {
                case .file(let path): try FileDescriptor(opening: path)
                case .standardInput: try FileDescriptor.standardInput.duplicate()
                case .tcp(let host, let port): try TCPClient.connect(host: host, port: port)
                case .serial(let path, let baud): try SerialPort.openDevice(path, baud: baud)
                }
            } catch {
                throw PositioningError(opening: error)
            }
            var decoder = NMEADecoder(options: options)
            var pacer = ReplayPacer(pacing: pacing, clock: clock)
            var lost = false
            var pending: [NMEAFix] = []
            do {
                for try await chunk in DescriptorReader(fd).chunks() {
                    chunk.withUnsafeBytes { decoder.decode($0) { pending.append($0) } }
                    for fix in pending {
                        try await deliver(fix, pacer: &pacer, lost: &lost, to: output)
                    }
                    pending.removeAll(keepingCapacity: true)
                }
            } catch let error as SystemIOError {
                throw PositioningError(.io, error.description, underlying: error)
            }
            decoder.finish { pending.append($0) }
            for fix in pending { try await deliver(fix, pacer: &pacer, lost: &lost, to: output) }
        }
    }

    private func deliver(_ fix: NMEAFix, pacer: inout ReplayPacer, lost: inout Bool,
                         to output: AsyncThrowingStream<PositionSourceEvent, any Error>.Continuation) async throws {
        guard let location = fix.location else {
            if fix.mode != nil, !lost { output.yield(.lost) }
            if fix.mode != nil { lost = true }
            return
        }
        try await pacer.wait(until: location.timestamp)
        lost = false
        output.yield(.location(location))
    }
}

/// Waits between replayed fixes as their timestamps say, scaled by the pacing.
struct ReplayPacer {
    let pacing: GPXReplaySource.Pacing?
    let clock: SourceClock
    private var previous: Date?

    init(pacing: GPXReplaySource.Pacing?, clock: SourceClock) {
        self.pacing = pacing
        self.clock = clock
    }

    /// Waits for the track time from the previous fix to `timestamp` (nothing for the first fix,
    /// a time step backwards or no pacing).
    mutating func wait(until timestamp: Date) async throws {
        defer { previous = timestamp }
        guard let previous else { return }
        try await wait(seconds: timestamp.timeIntervalSince(previous))
    }

    /// Waits for `seconds` of track time.
    func wait(seconds: TimeInterval) async throws {
        switch pacing {
        case nil: return
        case .asFastAsPossible?: await Task.yield()
        case .speedFactor(let f)?:
            guard seconds > 0, seconds.isFinite else { return }
            try await clock.sleep(for: .seconds(seconds / f))
        }
    }
}
