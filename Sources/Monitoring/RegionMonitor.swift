public import Foundation
public import GeoCore
import Synchronization

/// A persisted set of conditions and their events, shaped like Core Location's `CLMonitor`.
///
/// Opened by name: with a directory, its conditions and states live in that directory's
/// ``MonitorStore`` and a process that opens the same name again (after an exit or a kill -9)
/// rejoins them; without one it lives in memory. Fixes and beacon sightings go in through
/// ``process(_:)`` and ``observe(beacons:at:)``; decisions (``FenceEngine``, ``FencePolicy``)
/// come out through ``events`` and as return values. The store is rewritten after every change
/// of conditions or states.
public actor RegionMonitor {
    /// The dwell times a user may give, seconds inside before a dwell event: above 0 through
    /// a Julian year (31,557,600 s).
    public static let dwellTimes = ValidRange(above: 0, through: 31_557_600, unit: "s")
    public nonisolated let name: String
    private var engine: FenceEngine
    private let store: MonitorStore?
    private let now: @Sendable () -> Date
    private nonisolated let broadcaster = MonitorEventBroadcaster()
    /// The store lines that could not be read back when the monitor was opened (each with its
    /// line); the valid ones were kept.
    public nonisolated let recoveryProblems: [MonitoringError]

    /// Opens the monitor `name`, rejoining what its store in `directory` holds.
    /// - Parameters:
    ///   - now: the clock `add` and `remove` stamp their events with when no fix has come yet.
    /// - Throws: `MonitoringError` when the store cannot be made or read.
    public init(named name: String, directory: URL?, policy: FencePolicy = .default,
                now: @escaping @Sendable () -> Date = { Date() }) throws(MonitoringError) {
        self.name = name
        self.now = now
        var engine = FenceEngine(policy: policy)
        var problems: [MonitoringError] = []
        if let directory {
            let store = try MonitorStore(name: name, directory: directory)
            let loaded = try store.load()
            problems = loaded.problems
            for record in loaded.records {
                do { try engine.restore(record) } catch { problems.append(error) }
            }
            self.store = store
        } else {
            store = nil
        }
        self.engine = engine
        recoveryProblems = problems
    }

    /// The identifiers monitored, sorted.
    public var identifiers: [String] { engine.identifiers }

    /// Fixes ignored so far: out of order, or without a usable accuracy (``FencePolicy``).
    public var ignoredFixes: Int { engine.ignoredFixes }

    /// The record of `identifier`, if monitored.
    public func record(for identifier: String) -> MonitorRecord? { engine.record(for: identifier) }

    /// Every event from now on. Ending the consuming task or dropping the iterator unsubscribes.
    public nonisolated var events: MonitorEvents { broadcaster.subscribe() }

    /// Monitors `condition` as `identifier` (replacing one of that name), assuming `state`
    /// until decided.
    public func add(_ condition: MonitorCondition, identifier: String, assuming state: ConditionState = .unknown,
                    dwell: Duration? = nil) throws(MonitoringError) {
        try engine.add(condition, identifier: identifier, assuming: state, dwell: dwell, at: now())
        try save()
    }

    /// Makes the monitored conditions exactly `conditions`, each with `dwell`: the others are
    /// removed, one whose condition and dwell are unchanged keeps its record (a rerun over the
    /// same store rejoins it), the rest are added undecided.
    /// - Returns: each condition's state now: the rejoined one's, else `.unknown`.
    public func monitorExactly(_ conditions: [(identifier: String, condition: MonitorCondition)],
                               dwell: Duration?) throws(MonitoringError) -> [String: ConditionState] {
        let wanted = Set(conditions.map(\.identifier))
        for identifier in identifiers where !wanted.contains(identifier) { try remove(identifier) }
        var states: [String: ConditionState] = [:]
        for (identifier, condition) in conditions {
            if let record = record(for: identifier), record.condition == condition, record.dwell == dwell {
                states[identifier] = record.state
            } else {
                try add(condition, identifier: identifier, dwell: dwell)
                states[identifier] = .unknown
            }
        }
        return states
    }

    /// Stops monitoring `identifier`; its `.unmonitored` event goes to ``events``.
    /// - Throws: `MonitoringError.invalidIdentifier` when it is not monitored.
    public func remove(_ identifier: String) throws(MonitoringError) {
        guard let event = engine.remove(identifier, at: now()) else {
            throw MonitoringError(.invalidIdentifier, "'\(identifier)' is not monitored")
        }
        try save()
        broadcaster.send([event])
    }

    /// Decides the conditions with one fix; returns its events (also sent to ``events``).
    @discardableResult
    public func process(_ fix: Location) throws(MonitoringError) -> [MonitorEvent] {
        let events = engine.process(fix)
        if !events.isEmpty { try save() }
        broadcaster.send(events)
        return events
    }

    /// Decides the beacon conditions with the beacons seen at `date`.
    @discardableResult
    public func observe(beacons: [(uuid: UUID, major: UInt16, minor: UInt16)], at date: Date) throws(MonitoringError) -> [MonitorEvent] {
        let events = engine.observe(beacons: beacons, at: date)
        if !events.isEmpty { try save() }
        broadcaster.send(events)
        return events
    }

    private func save() throws(MonitoringError) {
        guard let store else { return }
        try store.save(engine.identifiers.compactMap { engine.record(for: $0) })
    }
}

/// A monitor's events as a named sequence (STYLE.md §3.8).
public struct MonitorEvents: AsyncSequence, Sendable {
    public typealias Element = MonitorEvent
    let stream: AsyncStream<MonitorEvent>
    public func makeAsyncIterator() -> AsyncStream<MonitorEvent>.Iterator { stream.makeAsyncIterator() }
}

/// Fans a monitor's events out to its subscribers, each with an unbounded buffer.
final class MonitorEventBroadcaster: Sendable {
    private let state = Mutex<(next: Int, subscribers: [Int: AsyncStream<MonitorEvent>.Continuation])>((0, [:]))

    func subscribe() -> MonitorEvents {
        let (stream, continuation) = AsyncStream<MonitorEvent>.makeStream()
        let id = state.withLock { s in
            defer { s.next += 1 }
            s.subscribers[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return MonitorEvents(stream: stream)
    }

    func send(_ events: [MonitorEvent]) {
        guard !events.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for s in subscribers { for e in events { s.yield(e) } }
    }
}
