import Foundation
import GeoCore
import Compass
public import NMEACodec
import SystemIO
public import TrackFiltering

/// Positions decoded from an NMEA 0183 byte stream: a file, standard input, a TCP endpoint or a
/// serial device. Each reporting cycle becomes one fix (`NMEADecoder`, gpsd's epoch rules); a
/// cycle without a fix reports `.lost` once.
///
/// A serial device without read permission fails with `PositioningError.denied` (the manager
/// reports `denied` authorization and retries until access is granted); a missing device fails with `.sourceUnavailable`;
/// a TCP connection is tried as `reconnect` says (backoff, `onConnectionChange` hears the first
/// failure and the connection that ends a run of them) and fails with `.sourceUnavailable`
/// when its retries are spent; a stream that ends (a file, a closed connection) ends the run.
///
/// Adjusted to a `SourceDemand` with a `checkInterval` (significant changes), a file or
/// standard input skips the epochs between checks (decoded, not delivered, not waited for). A
/// serial receiver is asked to compute fewer fixes instead (`SerialRateControl`): its fix
/// interval is set to the check interval, else to the demand's `receiverCycle`, for the run,
/// and back to one second when the run ends. A TCP stream delivers every fix (LocationKit
/// does not know what is behind it, and sends it nothing).
public final class NMEASource: BatchPositionSource, DemandAdjustableSource {
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
    public let pacing: ReplayPacing?
    public var isReplayedAsFastAsPossible: Bool { pacing == .asFastAsPossible }
    /// How a TCP input connects.
    public let reconnect: ReconnectPolicy
    private let onConnectionChange: @Sendable (ConnectionChange) -> Void
    private let clock: SourceClock
    private let runs = RunCounter()

    public init(_ input: Input, options: NMEADecoder.Options = .init(), pacing: ReplayPacing? = nil,
                reconnect: ReconnectPolicy = ReconnectPolicy(), clock: SourceClock = .continuous,
                onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }) {
        self.input = input
        self.options = options
        self.pacing = pacing
        self.reconnect = reconnect
        self.onConnectionChange = onConnectionChange
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

    /// Reads the input on the batch path: one batch per chunk read (the fixes its sentences
    /// complete) without pacing; with pacing, each fix before its wait. A consumer that lags
    /// behind a live device (serial, TCP) loses the oldest batches beyond the newest 64, not the
    /// newest fixes; a file or standard input is read no faster than the consumer takes it
    /// (backpressure), so a replay loses nothing however slow its consumer.
    public func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> { eventBatches(meeting: .everyFix) }

    public func adjusted(to demand: SourceDemand) -> any PositionSource {
        switch input {
        case .file, .standardInput: demand.checkInterval == nil ? self : AdjustedNMEA(base: self, demand: demand)
        case .serial: demand.checkInterval == nil && demand.receiverCycle == nil ? self : AdjustedNMEA(base: self, demand: demand)
        case .tcp: self
        }
    }

    /// A run that delivers only the epochs `demand.checkInterval` wants (files and standard input).
    fileprivate func eventBatches(meeting demand: SourceDemand) -> AsyncThrowingStream<[PositionSourceEvent], any Error> {
        runs.stream(bufferingPolicy: isLive ? .bufferingNewest(64) : .countingUnbounded) { [self] continuation in
            var output = EventBatchOutput(continuation)
            var checks = CheckIntervalSkipper(isLive ? nil : demand.checkInterval)
            let fd = try await open()
            let rate = SerialRateControl(input: input, demand: demand, device: fd)
            defer { rate.restore() }
            var decoder = NMEADecoder(options: options)
            var previous: Date?
            var lost = false
            var pending: [NMEAFix] = []
            do {
                for try await chunk in DescriptorReader(fd).chunks() {
                    chunk.withUnsafeBytes { decoder.decode($0) { pending.append($0) } }
                    for fix in pending {
                        try await deliver(fix, after: &previous, lost: &lost, checks: &checks, to: &output)
                    }
                    pending.removeAll(keepingCapacity: true)
                    await send(&output)
                }
            } catch let error as SystemIOError {
                throw PositioningError(.io, error.description, underlying: error)
            }
            decoder.finish { pending.append($0) }
            for fix in pending { try await deliver(fix, after: &previous, lost: &lost, checks: &checks, to: &output) }
            await send(&output)
        }
    }

    /// Whether the input is a live device (serial, TCP), whose fixes a lagging consumer may lose
    /// rather than fall behind; a file or standard input waits for its consumer instead.
    private var isLive: Bool {
        switch input {
        case .serial, .tcp: true
        case .file, .standardInput: false
        }
    }

    /// Sends the pending batch; from a file or standard input, waits while the consumer lags.
    private func send(_ output: inout EventBatchOutput) async {
        if isLive { output.flush() } else { await output.flushPaced() }
    }

    /// Opens the input; a TCP connection is retried as `reconnect` says.
    private func open() async throws -> FileDescriptor {
        guard case .tcp(let host, let port) = input else {
            do throws(SystemIOError) {
                switch input {
                case .file(let path): return try FileDescriptor(opening: path)
                case .standardInput: return try FileDescriptor.standardInput.duplicate()
                case .serial(let path, let baud): return try SerialPort.openDevice(path, baud: baud)
                case .tcp: preconditionFailure("Broken contract: TCP is connected below")
                }
            } catch {
                throw PositioningError(opening: error)
            }
        }
        var attempts = ConnectionAttempts(reconnect, name: name, report: onConnectionChange)
        while true {
            try Task.checkCancellation()
            do {
                let fd = try TCPClient.connect(host: host, port: port, timeout: reconnect.connectTimeout)
                attempts.connected()
                return fd
            } catch {
                try await attempts.failed("\(error)", clock: clock)
            }
        }
    }

    /// Adds the fix to the batch once the pacing's delay after the `previous` fix has passed,
    /// yielding what is pending before waiting (a cycle without a fix adds `.lost` once). A
    /// true heading in the cycle (`HDT` or `THS`) follows as a `.heading` event (seed 003's
    /// `didUpdateHeading`), dated by the cycle; a THS with mode V is not reliable (the manager
    /// reports `.headingFailure` for it). The decoder drops a heading outside 0…360° (NaN,
    /// 720°) rather than wrapping it (360° is 0°).
    private func deliver(_ fix: NMEAFix, after previous: inout Date?, lost: inout Bool, checks: inout CheckIntervalSkipper,
                         to output: inout EventBatchOutput) async throws {
        if let location = fix.location, !checks.wants(location.timestamp) { return } // resting between checks
        defer {
            if let degrees = fix.heading, let time = fix.location?.timestamp ?? fix.time {
                output.append(.heading(Heading(timestamp: time, trueHeading: Bearing(degrees: degrees),
                                               isReliable: fix.headingMode != .notValid)))
            }
        }
        guard let location = fix.location else {
            if fix.mode != nil, !lost { output.append(.lost) }
            if fix.mode != nil { lost = true }
            return
        }
        if let previous, pacing != nil {
            await send(&output)
            try await clock.pace(pacing, from: previous, to: location.timestamp)
        }
        previous = location.timestamp
        lost = false
        output.append(.location(location))
    }
}

/// A serial receiver's fix interval for one run (issue 33 item 7: significant changes save work
/// at the source, seed 000): the demand's check interval, else its receiver cycle, sent as both
/// UBX-CFG-RATE and PMTK220 (`ReceiverRate`; u-blox takes up to 65.5 s, MTK at most 10 s, and
/// the manager's 500 m gate still sees every fix made), then one fix a second — most NMEA
/// receivers' default — when the run ends. The commands go through a duplicate of the device,
/// since the reader closes its own at the end. A device that refuses the write keeps its rate,
/// and every fix it makes still reaches the gate.
private struct SerialRateControl {
    private let device: FileDescriptor?

    init(input: NMEASource.Input, demand: SourceDemand, device reading: FileDescriptor) {
        guard case .serial = input, let interval = demand.checkInterval ?? demand.receiverCycle,
              let control = try? reading.duplicate() else {
            device = nil
            return
        }
        do {
            try control.writeAll(ReceiverRate.setFixInterval(interval))
            device = control
        } catch {
            try? control.close()
            device = nil
        }
    }

    /// Sets the receiver back to one fix a second and closes the duplicate.
    func restore() {
        guard let device else { return }
        try? device.writeAll(ReceiverRate.setFixInterval(.seconds(1)))
        try? device.close()
    }
}

/// An NMEA file, standard input or serial device whose runs meet a `SourceDemand` (`NMEASource.adjusted(to:)`).
private struct AdjustedNMEA: BatchPositionSource {
    let base: NMEASource
    let demand: SourceDemand
    var name: String { base.name }
    var isReplayedAsFastAsPossible: Bool { base.isReplayedAsFastAsPossible }
    func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> { base.eventBatches(meeting: demand) }
}
