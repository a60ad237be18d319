import Synchronization

/// Wraps a source and reports `.lost` when it stays silent longer than `timeout` on `clock`.
///
/// One `.lost` per silence: the next fix re-arms it. Every run of the wrapper runs one
/// forwarding task and one timer task, both ended when the consumer goes away. It passes a
/// `BatchPositionSource`'s batches on as they are (`eventBatches()`). A source replayed as fast
/// as possible (`PositionSource.isReplayedAsFastAsPossible`) is passed on without a timer: a
/// stall of the machine is not a lost position.
public struct LostPositionWatchdog<C: Clock>: BatchPositionSource where C.Duration == Duration {
    public let source: any PositionSource
    public let timeout: Duration
    public let clock: C

    public init(_ source: any PositionSource, timeout: Duration, clock: C) {
        self.source = source
        self.timeout = timeout
        self.clock = clock
    }

    public var name: String { source.name }
    public var isReplayedAsFastAsPossible: Bool { source.isReplayedAsFastAsPossible }

    /// When the silence began, and whether it was already reported; shared by a run's two tasks.
    private final class Silence: Sendable {
        struct State {
            var since: C.Instant
            var reported = false
        }
        let state: Mutex<State>
        init(since: C.Instant) { state = Mutex(State(since: since)) }
        func withLock<R>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }
    }

    public func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        watch(source.events(), lost: .lost, backlog: 1024, forward: { $0 }, endsLost: Self.endsLost)
    }

    /// The batch path: the source's batches as they come (a source without one has each event
    /// forwarded as a batch of one), the watchdog's `.lost` as a batch of its own.
    public func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> {
        if let batched = source as? any BatchPositionSource {
            return watch(batched.eventBatches(), lost: [.lost], backlog: 16, forward: { $0 }, endsLost: { $0.reversed().lazy.compactMap(Self.endsLost).first })
        }
        return watch(source.events(), lost: [.lost], backlog: 1024, forward: { [$0] }, endsLost: Self.endsLost)
    }

    /// Whether `event` leaves the position lost; nil for a heading, which says nothing of it.
    @Sendable private static func endsLost(_ event: PositionSourceEvent) -> Bool? {
        if case .heading = event { return nil }
        return event == .lost
    }

    /// Forwards `input` (each element through `forward`, holding back while more than `backlog`
    /// wait unread) and yields `lost` after a silence of `timeout`; `endsLost` tells whether an
    /// input element leaves the position lost, nil when it says nothing of the position (a heading
    /// sensor's reports) and so does not end the silence.
    private func watch<Input: Sendable, Output: Sendable>(
        _ input: AsyncThrowingStream<Input, any Error>, lost: Output, backlog: Int,
        forward transform: @escaping @Sendable (Input) -> Output, endsLost: @escaping @Sendable (Input) -> Bool?
    ) -> AsyncThrowingStream<Output, any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(of: Output.self, bufferingPolicy: .countingUnbounded)
        let clock = self.clock, timeout = self.timeout
        let silence = Silence(since: clock.now)
        let forward = Task {
            do {
                for try await element in input {
                    if let lost = endsLost(element) {
                        silence.withLock { s in
                            s.since = clock.now
                            s.reported = lost
                        }
                    }
                    await output.yieldPaced(transform(element), limit: backlog)
                }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        let timer = source.isReplayedAsFastAsPossible ? nil : Task {
            while !Task.isCancelled {
                let deadline = silence.withLock { $0.since.advanced(by: timeout) }
                do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                let fire = silence.withLock { s -> Bool in
                    guard !s.reported, s.since.advanced(by: timeout) <= clock.now else { return false }
                    s.reported = true
                    return true
                }
                if fire { output.yield(lost) }
                // Already reported: wait a whole timeout before looking again.
                if silence.withLock({ $0.reported }) {
                    do { try await clock.sleep(until: clock.now.advanced(by: timeout), tolerance: nil) } catch { return }
                }
            }
        }
        output.onTermination = { _ in
            forward.cancel()
            timer?.cancel()
        }
        return stream
    }
}
