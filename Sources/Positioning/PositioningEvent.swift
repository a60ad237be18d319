import Synchronization
public import GeoCore

/// What the positioning manager tells its subscribers.
public enum PositioningEvent: Sendable {
    /// A new position was delivered (HERE's `DidUpdatePosition`).
    case updated(Location)
    /// The position is lost: the source is silent or has no fix (HERE's `DidLosePosition`).
    case lost
    /// The source failed; `.locationUnknown` is retried, `.denied` stops the manager.
    case failed(PositioningError)
    /// The device stopped moving; updates pause until it moves again.
    case paused
    /// The device moves again after a pause.
    case resumed
    /// The source's authorization changed.
    case authorizationChanged(AuthorizationStatus)
    /// Positioning stopped: `stop()` was called, the source ended or access was denied.
    case stopped
}

/// The manager's events as a named sequence (STYLE.md §3.8), one independent buffer per
/// subscriber. Cancelling the consuming task or dropping the iterator unsubscribes.
public struct PositioningEvents: AsyncSequence, Sendable {
    public typealias Element = PositioningEvent
    let stream: AsyncStream<PositioningEvent>

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<PositioningEvent>.AsyncIterator
        public mutating func next() async -> PositioningEvent? { await base.next() }
    }
}

/// Fans events out to any number of subscribers; registration is synchronous so a subscriber
/// sees every event sent after `subscribe` returns.
final class EventBroadcaster: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<PositioningEvent>.Continuation] = [:] {
            didSet { sendList = Array(subscribers.values) }
        }
        /// `subscribers.values`, rebuilt on (un)subscription so `send` allocates nothing.
        var sendList: [AsyncStream<PositioningEvent>.Continuation] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func subscribe(bufferingPolicy: AsyncStream<PositioningEvent>.Continuation.BufferingPolicy) -> PositioningEvents {
        let (stream, continuation) = AsyncStream.makeStream(of: PositioningEvent.self, bufferingPolicy: bufferingPolicy)
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.subscribers[s.nextID] = continuation
            return s.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return PositioningEvents(stream: stream)
    }

    func send(_ event: PositioningEvent) {
        let subscribers = state.withLock { $0.sendList }
        for s in subscribers { s.yield(event) }
    }
}
