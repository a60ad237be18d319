import Foundation
public import GeoCore
import Synchronization
import TrackFiltering

/// A clock reduced to what sources need, so source types are not generic over their clock:
/// `SourceClock(ContinuousClock())` in production, `SourceClock(ManualClock())` in tests.
public struct SourceClock: Sendable {
    private let sleepFor: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        sleepFor = { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
    }

    /// The continuous clock.
    public static var continuous: SourceClock { SourceClock(ContinuousClock()) }

    /// Suspends for `duration` on the clock.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(for duration: Duration) async throws { try await sleepFor(duration) }
}

extension SourceClock {
    /// Waits out `trackTime` of a replay or simulation as `pacing` says: nothing without
    /// pacing, a turn for other tasks as fast as possible, else the scaled delay on the clock.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func pace(_ pacing: ReplayPacing?, after trackTime: Duration) async throws {
        try await wait(pacing, pacing?.delay(after: trackTime))
    }

    /// Waits out the track time between fixes recorded at `previous` and `next` as `pacing` says.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func pace(_ pacing: ReplayPacing?, from previous: Date, to next: Date) async throws {
        try await wait(pacing, pacing?.delay(from: previous, to: next))
    }

    private func wait(_ pacing: ReplayPacing?, _ delay: Duration?) async throws {
        switch pacing {
        case nil: return
        case .asFastAsPossible?: await Task.yield()
        case .speedFactor?: if let delay, delay > .zero { try await sleep(for: delay) }
        }
    }
}

extension ReplayPacing {
    /// - Throws: `PositioningError.invalidConfiguration` for a speed factor outside
    ///   `PositionSourceURI.Limits.speedFactor` (a tiny factor would make a wait overflow `Duration`).
    func validate() throws(PositioningError) {
        if case .speedFactor(let factor) = self, !PositionSourceURI.Limits.speedFactor.contains(factor) {
            throw PositioningError(.invalidConfiguration, "speed factor must be \(PositionSourceURI.Limits.speedFactor), got \(factor)")
        }
    }
}

/// Faults a simulated source can be switched into while it runs (HERE's `stationary` and
/// `positionLost` on its logged and route sources).
public final class SimulationFaults: Sendable {
    private let state = Mutex((stationary: false, lost: false))

    public init() {}

    /// Hold the position, with realistic jitter, instead of moving on.
    public var isStationary: Bool {
        get { state.withLock { $0.stationary } }
        set { state.withLock { $0.stationary = newValue } }
    }

    /// Deliver nothing (one `.lost`, then silence) until switched off again.
    public var isPositionLost: Bool {
        get { state.withLock { $0.lost } }
        set { state.withLock { $0.lost = newValue } }
    }
}

/// Counts a source's running streams, so tests (and the contract test) can prove that a run
/// ends when its consumer goes away.
final class RunCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }

    /// A stream fed by `produce` in its own task; the task is cancelled when the consumer goes
    /// away, and the count covers exactly the task's lifetime.
    func stream<Element: Sendable>(bufferingPolicy: AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy = .unbounded,
                                   _ produce: @escaping @Sendable (AsyncThrowingStream<Element, any Error>.Continuation) async throws -> Void)
        -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        count.withLock { $0 += 1 }
        let task = Task {
            defer { self.count.withLock { $0 -= 1 } }
            do {
                try await produce(continuation)
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension AsyncThrowingStream.Continuation.BufferingPolicy {
    /// A buffering policy that never drops, like `.unbounded`, but whose `yield` reports how
    /// many elements wait unread (see `yieldPaced`).
    static var countingUnbounded: Self { .bufferingOldest(Int.max) }
}

extension AsyncThrowingStream.Continuation where Element: Sendable {
    /// Yields `element`, then, while more than `limit` elements wait unread, gives way to other
    /// tasks, so a producer that runs as fast as possible cannot run ahead of its consumer
    /// without bound (memory stays flat). Needs a stream made with `countingUnbounded`.
    func yieldPaced(_ element: Element, limit: Int = 1024) async {
        if case .enqueued(let remaining) = yield(element), Int.max - remaining > limit { await Task.yield() }
    }
}

/// The output of one batch-path run (`BatchPositionSource`): events gather and go out as one
/// batch when the producer is about to wait; a producer that never waits (a fast replay)
/// flushes when `isFull`.
struct EventBatchOutput {
    typealias Continuation = AsyncThrowingStream<[PositionSourceEvent], any Error>.Continuation
    let continuation: Continuation
    /// The events a fast producer gathers per batch: 64 fixes (about 13 KiB) amortise the stream's cost per batch
    /// to nothing and keep the latency of a fast replay well under a millisecond.
    let capacity: Int
    private var pending: [PositionSourceEvent] = []

    init(_ continuation: Continuation, capacity: Int = 64) {
        self.continuation = continuation
        self.capacity = capacity
    }

    /// Whether `capacity` events are pending: time to `flush`.
    var isFull: Bool { pending.count >= capacity }

    /// Adds an event to the pending batch.
    mutating func append(_ event: PositionSourceEvent) {
        if pending.isEmpty { pending.reserveCapacity(capacity) }
        pending.append(event)
    }

    /// Yields the pending events as one batch (nothing when none are pending).
    mutating func flush() {
        guard !pending.isEmpty else { return }
        continuation.yield(pending)
        pending = []
    }

    /// Like `flush`, then gives way to other tasks while more than `limit` batches wait unread
    /// (see `yieldPaced`; needs a stream made with `countingUnbounded`).
    mutating func flushPaced(limit: Int = 16) async {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        await continuation.yieldPaced(batch, limit: limit)
    }
}

/// How a network source (gpsd, NMEA over TCP) connects and reconnects: each attempt may take
/// `connectTimeout`; after a failure it waits `initialBackoff`, doubling per failure in a row
/// up to `maximumBackoff`, and gives up after `maximumRetries` failures in a row (nil: never).
public struct ReconnectPolicy: Sendable, Hashable {
    public var initialBackoff: Duration
    public var maximumBackoff: Duration
    public var maximumRetries: Int?
    public var connectTimeout: Duration
    /// The `maximumRetries` a user may give: 0 through 1,000 failed connections in a row.
    public static let retryCounts = ValidRange(0...1_000, unit: "")
    /// The `connectTimeout`s a user may give, seconds per attempt: above 0 through an hour.
    public static let connectTimeouts = ValidRange(above: 0, through: 3_600, unit: "s")

    /// Defaults: 0.25 s doubling to 8 s, a 5 s connect timeout, retrying for ever (a library
    /// source outlives a daemon restart; `geo track` sets a limit, `--retry`).
    public init(initialBackoff: Duration = .milliseconds(250), maximumBackoff: Duration = .seconds(8),
                maximumRetries: Int? = nil, connectTimeout: Duration = .seconds(5)) {
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumRetries = maximumRetries
        self.connectTimeout = connectTimeout
    }

    /// The wait after the `failures`-th failure in a row (from 1): `initialBackoff` ×
    /// 2^(failures − 1), at most `maximumBackoff`.
    public func backoff(afterFailures failures: Int) -> Duration {
        var wait = initialBackoff
        for _ in 1..<max(failures, 1) where wait < maximumBackoff { wait = wait * 2 }
        return min(wait, maximumBackoff)
    }
}

/// What a network source says about its connection, once per change: the first failure of a
/// run of failures (later ones in the run are silent) and the connection that ends the run.
public enum ConnectionChange: Sendable, Hashable {
    /// The connection failed or closed: why, and how long until the next attempt.
    case failing(reason: String, retryingIn: Duration)
    /// Connected again after `failures` failed attempts.
    case reconnected(afterFailures: Int)
}

extension ConnectionChange {
    /// The change in words, for a person watching a stream (`geo track` prints it on standard
    /// error): "REASON; retrying in 0.5 s, backing off to 8.0 s, up to 10 retries" (seconds as
    /// `Double`; the retry limit only when `policy` has one, last), or "connected after 3
    /// failed attempts".
    public func description(under policy: ReconnectPolicy) -> String {
        switch self {
        case .failing(let reason, let wait):
            let limit = policy.maximumRetries.map { ", up to \($0) retries" } ?? ""
            return "\(reason); retrying in \(wait.seconds) s, backing off to \(policy.maximumBackoff.seconds) s\(limit)"
        case .reconnected(let failures):
            return "connected after \(failures) failed attempt\(failures == 1 ? "" : "s")"
        }
    }
}

/// One run's failures in a row under a `ReconnectPolicy`: reports the changes, waits out the
/// backoff, and gives up when the retries are spent.
struct ConnectionAttempts {
    let policy: ReconnectPolicy
    /// The source's name, for the error when it gives up.
    let name: String
    let report: @Sendable (ConnectionChange) -> Void
    private var failures = 0

    init(_ policy: ReconnectPolicy, name: String, report: @escaping @Sendable (ConnectionChange) -> Void) {
        self.policy = policy
        self.name = name
        self.report = report
    }

    /// Counts a failed or closed connection, then waits for the next attempt.
    /// - Throws: `PositioningError.sourceUnavailable` once `maximumRetries` failures in a row
    ///   have passed; `CancellationError` when the task is cancelled while waiting.
    mutating func failed(_ reason: String, clock: SourceClock) async throws {
        failures += 1
        if let limit = policy.maximumRetries, failures > limit {
            let attempts = failures == 1 ? "" : " (\(failures) attempts in a row)"
            throw PositioningError(.sourceUnavailable, "\(name): \(reason)\(attempts)")
        }
        let wait = policy.backoff(afterFailures: failures)
        if failures == 1 { report(.failing(reason: reason, retryingIn: wait)) }
        try await clock.sleep(for: wait)
    }

    /// Counts a connection made; reports it when it ends a run of failures.
    mutating func connected() {
        if failures > 0 { report(.reconnected(afterFailures: failures)) }
        failures = 0
    }
}
