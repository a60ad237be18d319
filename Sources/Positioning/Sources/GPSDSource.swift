import Foundation
import GeoCore
import NMEACodec
import Synchronization
import SystemIO

/// Positions from a gpsd daemon over its JSON protocol (gpsd_json(5)): connects, sends
/// `?WATCH={"enable":true,"json":true}` and delivers one fix per receiver epoch.
///
/// gpsd reports a TPV after every sentence that changes its fix, so one epoch arrives as
/// several TPVs with the same time; `GPSDEpochAssembler` merges them (with the epoch's GST)
/// and the source delivers the epoch once it is complete: when the next epoch's TPV arrives,
/// when a TPV reports no fix, when the connection ends, or when gpsd's reporting cycle ends.
/// gpsd_json(5) has no end-of-cycle message, but gpsd writes a cycle's reports in one burst
/// and then waits for the receiver's next epoch, so silence ends the cycle: no report for
/// `cycleEndSilence` (checked every `cycleEndSilence`, so the epoch is delivered between one and
/// two silences after gpsd's last report of it).
///
/// gpsd's error figures are 95 % values; `GPSDMessage.TPV.location` converts them to the 68 %
/// accuracies of `Location` (÷ 2.4477 horizontally, ÷ 1.96 per axis). A TPV without a fix
/// (mode 0 or 1) reports `.lost` once. When gpsd is not there or goes away, the source reports
/// `.lost` and reconnects as its `ReconnectPolicy` says (exponential backoff on its clock,
/// for ever by default, until its consumer leaves); `onConnectionChange` hears the first
/// failure of each run and the reconnection that ends it.
///
/// Adjusted to a `SourceDemand` (`adjusted(to:)`, which the manager does): a `receiverCycle`
/// is asked of gpsd after the watch (`?DEVICE={"cycle":…}`; gpsd sets it where the
/// receiver's driver can, and answers with the device's cycle or an error that changes
/// nothing); with a `checkInterval`, once a fix is delivered the source turns gpsd's reports
/// off (`?WATCH={"enable":false}`), waits the interval on its clock, and turns them on again,
/// dropping whatever gpsd sent before it confirmed the new watch.
public final class GPSDSource: PositionSource, DemandAdjustableSource {
    public let host: String
    public let port: Int
    public let reconnect: ReconnectPolicy
    private let onConnectionChange: @Sendable (ConnectionChange) -> Void
    /// How long gpsd must stay silent after a report for its reporting cycle to count as ended,
    /// which delivers the pending epoch: 0.3 s by default, far longer than the gaps inside one
    /// cycle's burst and well inside the 1 s cycle of most receivers (a faster receiver's next
    /// epoch ends the cycle first).
    public let cycleEndSilence: Duration
    private let clock: SourceClock
    private let runs = RunCounter()
    private let received = Mutex(0)

    public init(host: String = "127.0.0.1", port: Int = 2947, reconnect: ReconnectPolicy = ReconnectPolicy(),
                cycleEndSilence: Duration = .milliseconds(300), clock: SourceClock = .continuous,
                onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.reconnect = reconnect
        self.onConnectionChange = onConnectionChange
        self.cycleEndSilence = cycleEndSilence
        self.clock = clock
    }

    public var name: String { "gpsd://\(host):\(port)" }

    /// The number of runs currently connected or reconnecting.
    public var activeRuns: Int { runs.value }

    /// The reports (JSON lines) gpsd sent to this source's runs so far: what watching less
    /// (`SourceDemand.checkInterval`) saves.
    public var reportsReceived: Int { received.withLock { $0 } }

    public func adjusted(to demand: SourceDemand) -> any PositionSource {
        demand == .everyFix ? self : AdjustedGPSD(base: self, demand: demand)
    }

    /// Whether a gpsd answers on `host:port` right now (connects and disconnects).
    public static func isReachable(host: String = "127.0.0.1", port: Int = 2947) -> Bool {
        guard let fd = try? TCPClient.connect(host: host, port: port) else { return false }
        try? fd.close()
        return true
    }

    /// One run's epoch under assembly and delivery state, shared by its reader and its
    /// cycle-end timer.
    private final class Run: Sendable {
        struct State {
            var epochs = GPSDEpochAssembler()
            /// Reports read so far: the timer ends a cycle only if none came while it slept.
            var reports = 0
            /// Whether `.lost` was the last thing delivered.
            var lost = false
            /// Whether gpsd's reports are turned off: everything is dropped until gpsd confirms
            /// a watch that is on again.
            var resting = false
            /// Whether a fix was delivered since `takeDeliveredFix()` was last asked.
            var deliveredFix = false
        }
        let state = Mutex(State())
        let output: AsyncThrowingStream<PositionSourceEvent, any Error>.Continuation
        init(_ output: AsyncThrowingStream<PositionSourceEvent, any Error>.Continuation) { self.output = output }

        /// Delivers `event`, `.lost` only once per loss; called under the lock, so the reader's
        /// and the timer's deliveries keep their order.
        static func deliver(_ event: PositionSourceEvent, _ state: inout State, to output: AsyncThrowingStream<PositionSourceEvent, any Error>.Continuation) {
            if event == .lost {
                if state.lost { return }
                state.lost = true
            } else if case .location = event {
                state.lost = false
                state.deliveredFix = true
            }
            output.yield(event)
        }

        func read(_ message: GPSDMessage) {
            state.withLock { s in
                s.reports += 1
                if s.resting {
                    if case .watch(let watch) = message, watch.enable == true { s.resting = false }
                    return
                }
                for event in s.epochs.add(message) { Self.deliver(event, &s, to: output) }
            }
        }

        /// Whether a fix was delivered since the last call.
        func takeDeliveredFix() -> Bool {
            state.withLock { s in
                defer { s.deliveredFix = false }
                return s.deliveredFix
            }
        }

        /// Drops the epoch under assembly and everything until the watch is on again (`resting`
        /// true), or ends a rest without waiting for gpsd (a new connection).
        func setResting(_ resting: Bool) {
            state.withLock { s in
                s.resting = resting
                if resting { s.epochs = GPSDEpochAssembler() }
            }
        }

        /// Ends the pending epoch if no report arrived since the `reports` count was read.
        func endCycle(ifStillAt reports: Int? = nil) {
            state.withLock { s in
                guard reports == nil || reports == s.reports, let event = s.epochs.finish() else { return }
                Self.deliver(event, &s, to: output)
            }
        }

        func reportLost() { state.withLock { Self.deliver(.lost, &$0, to: output) } }
        var reports: Int { state.withLock { $0.reports } }
    }

    public func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> { events(meeting: .everyFix) }

    /// A run that meets `demand` (see the type).
    fileprivate func events(meeting demand: SourceDemand) -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        runs.stream { [self] output in
            var attempts = ConnectionAttempts(reconnect, name: name, report: onConnectionChange)
            let run = Run(output)
            while true {
                try Task.checkCancellation()
                let fd: FileDescriptor
                do {
                    fd = try TCPClient.connect(host: host, port: port, timeout: reconnect.connectTimeout)
                } catch {
                    run.reportLost()
                    try await attempts.failed("\(error)", clock: clock)
                    continue
                }
                attempts.connected()
                run.setResting(false)
                try? fd.writeAll(GPSDMessage.watchCommand())
                if let cycle = demand.receiverCycle { try? fd.writeAll(GPSDMessage.deviceCycleCommand(cycle.seconds)) }
                let cycleEnd = Task { [clock, cycleEndSilence] in
                    while true {
                        let seen = run.reports
                        do { try await clock.sleep(for: cycleEndSilence) } catch { return }
                        run.endCycle(ifStillAt: seen)
                    }
                }
                var lines = LineSplitter()
                do {
                    for try await chunk in DescriptorReader(fd).chunks() {
                        lines.append(chunk) { line in
                            // Lines gpsd sends are JSON objects; anything else is skipped: one
                            // bad report costs only itself.
                            received.withLock { $0 += 1 }
                            if let message = try? GPSDMessage(json: line) { run.read(message) }
                        }
                        if let interval = demand.checkInterval, run.takeDeliveredFix() {
                            run.setResting(true)
                            try fd.writeAll(GPSDMessage.watchCommand(GPSDMessage.Watch.off))
                            try await clock.sleep(for: interval)
                            try fd.writeAll(GPSDMessage.watchCommand())
                        }
                    }
                } catch {
                    // A read error is the daemon going away, like end of stream: reconnect.
                }
                cycleEnd.cancel()
                run.endCycle()
                try Task.checkCancellation()
                run.reportLost()
                try await attempts.failed("gpsd closed the connection", clock: clock)
            }
        }
    }
}

/// A gpsd source whose runs meet a `SourceDemand` (`GPSDSource.adjusted(to:)`).
private struct AdjustedGPSD: PositionSource {
    let base: GPSDSource
    let demand: SourceDemand
    var name: String { base.name }
    func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> { base.events(meeting: demand) }
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
