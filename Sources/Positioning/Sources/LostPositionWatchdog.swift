import Synchronization

/// Wraps a source and reports `.lost` when it stays silent longer than `timeout` on `clock`.
///
/// One `.lost` per silence: the next fix re-arms it. Every run of the wrapper runs one
/// forwarding task and one timer task, both ended when the consumer goes away.
public struct LostPositionWatchdog<C: Clock>: PositionSource where C.Duration == Duration {
    public let source: any PositionSource
    public let timeout: Duration
    public let clock: C

    public init(_ source: any PositionSource, timeout: Duration, clock: C) {
        self.source = source
        self.timeout = timeout
        self.clock = clock
    }

    public var name: String { source.name }

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
        let (stream, output) = AsyncThrowingStream.makeStream(of: PositionSourceEvent.self, bufferingPolicy: .countingUnbounded)
        let clock = self.clock, timeout = self.timeout, inner = source
        let silence = Silence(since: clock.now)
        let forward = Task {
            do {
                for try await event in inner.events() {
                    if case .heading = event {} else { // a heading sensor's reports say nothing of the position
                        silence.withLock { s in
                            s.since = clock.now
                            s.reported = event == .lost
                        }
                    }
                    await output.yieldPaced(event)
                }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        let timer = Task {
            while !Task.isCancelled {
                let deadline = silence.withLock { $0.since.advanced(by: timeout) }
                do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
                let fire = silence.withLock { s -> Bool in
                    guard !s.reported, s.since.advanced(by: timeout) <= clock.now else { return false }
                    s.reported = true
                    return true
                }
                if fire { output.yield(.lost) }
                // Already reported: wait a whole timeout before looking again.
                if silence.withLock({ $0.reported }) {
                    do { try await clock.sleep(until: clock.now.advanced(by: timeout), tolerance: nil) } catch { return }
                }
            }
        }
        output.onTermination = { _ in
            forward.cancel()
            timer.cancel()
        }
        return stream
    }
}
