import Synchronization
public import GeoCore
public import Monitoring
public import Compass
public import TrackFiltering

/// What the positioning manager tells its subscribers.
///
/// The rare large payloads (a map-matched update holds four locations, a region event a
/// region) are boxed, so an event is the size of a fix (about 100 bytes, not 740): every
/// subscriber buffer and every copy of an update moves a quarter of the bytes.
public enum PositioningEvent: Sendable {
    /// A new position was delivered (HERE's `DidUpdatePosition`).
    case updated(Location)
    /// While map matching is on, just before each `.updated` (and only then): the fix's raw,
    /// filtered and map-matched positions and which of them `.updated` carries.
    indirect case mapMatched(MapMatchedUpdate)
    /// The track filter dropped this fix from the source, for this reason (no update follows
    /// it). The manager's `filterReport` keeps the counts by reason.
    case rejected(Location, RejectionReason)
    /// The position is lost: the source is silent or has no fix (HERE's `DidLosePosition`).
    case lost
    /// The source failed; `.locationUnknown` is retried, `.denied` waited out (reported once).
    case failed(PositioningError)
    /// The device stopped moving at this fix; updates pause until it moves again.
    case paused(Location)
    /// The device moves again after a pause.
    case resumed
    /// The source's authorization changed.
    case authorizationChanged(AuthorizationStatus)
    /// Positioning stopped: `stop()` was called, the source ended or could not be had.
    case stopped
    /// A visit began or ended (`startMonitoringVisits()`).
    case visit(VisitEvent)
    /// A new heading while heading updates run (`startUpdatingHeading()`, `headingFilter`),
    /// with magnetic and true heading resolved.
    case heading(Heading)
    /// Deferred delivery ended (`allowDeferredLocationUpdates(untilTraveled:timeout:)`): nil
    /// when its distance or time was reached, `.deferredCanceled` when cut short.
    case deferredUpdatesFinished(PositioningError?)
    /// Region monitoring: a region started, was decided, entered, left, or failed.
    indirect case region(RegionMonitoringEvent)
    /// Beacon ranging (`startRangingBeacons(satisfying:)`): the beacons of a constraint, or
    /// the scanner's failure.
    case beacons(BeaconRangingEvent)
}

/// The manager's events as a named sequence (STYLE.md §3.8), one independent buffer per
/// subscriber. Cancelling the consuming task or dropping the sequence and its iterators
/// unsubscribes.
public struct PositioningEvents: AsyncSequence, Sendable {
    public typealias Element = PositioningEvent
    let subscription: EventSubscription

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: subscription) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription
        /// Events taken from the channel at once (unbounded buffers only): `taken[chunk...]`.
        var taken: [ArraySlice<PositioningEvent>] = []
        var chunk = 0

        init(subscription: EventSubscription) { self.subscription = subscription }

        public mutating func next() async -> PositioningEvent? {
            while chunk < taken.count {
                if let event = taken[chunk].popFirst() { return event }
                chunk += 1
            }
            return await subscription.channel.next(taking: &taken, from: &chunk)
        }
    }
}

/// Ends its channel when the last copy of the sequence and its iterators goes away, as
/// `AsyncStream` does.
final class EventSubscription: Sendable {
    let channel: EventChannel
    init(channel: EventChannel) { self.channel = channel }
    deinit { channel.terminate() }
}

/// One subscriber's buffer with `AsyncStream`'s buffering policies: a waiting consumer gets an
/// event at once; otherwise it is buffered, `.bufferingOldest(n)` dropping the new events and
/// `.bufferingNewest(n)` the oldest ones when more than n would wait.
///
/// It does what `AsyncStream<PositioningEvent>` did here, specialised to one element type (the
/// generic stream looked up its type metadata on every send), with three savings for a fast
/// source: a batch of events is taken under one lock with at most one wake-up of the consumer;
/// it is kept as a slice of the array the broadcaster sent, shared by every subscriber rather
/// than copied into each one's buffer; and an unbounded buffer hands the consumer everything
/// waiting under one lock.
final class EventChannel: Sendable {
    private struct State {
        /// Waiting events, oldest first: `chunks[first...]`, none of them empty.
        var chunks: [ArraySlice<PositioningEvent>] = []
        var first = 0
        /// How many events wait.
        var pending = 0
        var waiter: UnsafeContinuation<PositioningEvent?, Never>?
        var terminated = false
        var onTermination: (@Sendable () -> Void)?

        /// Buffers `events` after the waiting ones under the policy of `limit` and `keepsNewest`.
        mutating func append(_ events: ArraySlice<PositioningEvent>, limit: Int?, keepsNewest: Bool) {
            var events = events
            if let limit {
                if !keepsNewest {
                    events = events.prefix(max(0, limit - pending))
                } else if events.count >= limit {
                    dropOldest(pending)
                    events = events.suffix(limit)
                } else {
                    dropOldest(max(0, pending + events.count - limit))
                }
            }
            guard !events.isEmpty else { return }
            chunks.append(events)
            pending += events.count
        }

        /// Removes the oldest waiting event (one must wait).
        mutating func removeFirst() -> PositioningEvent {
            let event = chunks[first][chunks[first].startIndex]
            dropOldest(1)
            return event
        }

        /// Drops the `n` oldest waiting events (at most `pending`).
        mutating func dropOldest(_ n: Int) {
            var n = n
            while n > 0 {
                let count = chunks[first].count
                if count > n {
                    chunks[first].removeFirst(n)
                    break
                }
                chunks[first] = []
                first += 1
                n -= count
                pending -= count
            }
            pending -= n
            if first == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                first = 0
            } else if first >= 64, first * 2 >= chunks.count {
                chunks.removeFirst(first)
                first = 0
            }
        }
    }
    private let state = Mutex(State())
    /// The most events kept waiting; nil for no limit.
    private let limit: Int?
    private let keepsNewest: Bool

    init(bufferingPolicy: AsyncStream<PositioningEvent>.Continuation.BufferingPolicy) {
        switch bufferingPolicy {
        case .bufferingOldest(let n): (limit, keepsNewest) = (max(n, 0), false)
        case .bufferingNewest(let n): (limit, keepsNewest) = (max(n, 0), true)
        default: (limit, keepsNewest) = (nil, true) // .unbounded
        }
    }

    /// Called once, when the consumer goes away.
    func setOnTermination(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.onTermination = body } }

    /// Delivers or buffers `events` in order (see the type's policy) under one lock: a waiting
    /// consumer gets the first and finds the rest buffered. Nothing once terminated.
    func yield(contentsOf events: [PositioningEvent]) {
        guard let first = events.first else { return }
        let waiter = state.withLock { s -> UnsafeContinuation<PositioningEvent?, Never>? in
            guard !s.terminated else { return nil }
            let waiter = s.waiter
            s.waiter = nil
            s.append(waiter == nil ? events[...] : events.dropFirst(), limit: limit, keepsNewest: keepsNewest)
            return waiter
        }
        waiter?.resume(returning: first)
    }

    /// The next event, suspending while none waits; nil once terminated. For an unbounded
    /// buffer every waiting event moves into `taken` (consumed from `chunk` on) under one lock.
    func next(taking taken: inout [ArraySlice<PositioningEvent>], from chunk: inout Int) async -> PositioningEvent? {
        enum Step { case event(PositioningEvent), end, wait }
        let takesAll = limit == nil
        let step = state.withLock { s -> Step in
            if s.pending > 0 {
                guard takesAll else { return .event(s.removeFirst()) }
                taken.removeAll(keepingCapacity: true)
                swap(&taken, &s.chunks)
                chunk = s.first
                s.first = 0
                s.pending = 0
                return .event(taken[chunk].removeFirst())
            }
            return s.terminated ? .end : .wait
        }
        switch step {
        case .event(let event): return event
        case .end: return nil
        case .wait: break
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: UnsafeContinuation<PositioningEvent?, Never>) in
                let now = state.withLock { s -> PositioningEvent?? in
                    if s.pending > 0 { return .some(s.removeFirst()) }
                    if s.terminated { return .some(nil) }
                    s.waiter = waiter
                    return nil
                }
                if let now { waiter.resume(returning: now) }
            }
        } onCancel: {
            terminate()
        }
    }

    /// Ends the channel: a waiting consumer gets nil, buffered events are dropped, and the
    /// termination handler runs (once).
    func terminate() {
        let (waiter, handler) = state.withLock { s -> (UnsafeContinuation<PositioningEvent?, Never>?, (@Sendable () -> Void)?) in
            guard !s.terminated else { return (nil, nil) }
            s.terminated = true
            s.chunks = []
            s.first = 0
            s.pending = 0
            defer { s.waiter = nil; s.onTermination = nil }
            return (s.waiter, s.onTermination)
        }
        waiter?.resume(returning: nil)
        handler?()
    }
}

/// Fans events out to any number of subscribers; registration is synchronous so a subscriber
/// sees every event sent after `subscribe` returns.
final class EventBroadcaster: Sendable {
    private struct State {
        var subscribers: [Int: EventChannel] = [:] {
            didSet { sendList = Array(subscribers.values) }
        }
        /// `subscribers.values`, rebuilt on (un)subscription so `send` allocates nothing.
        var sendList: [EventChannel] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func subscribe(bufferingPolicy: AsyncStream<PositioningEvent>.Continuation.BufferingPolicy) -> PositioningEvents {
        let channel = EventChannel(bufferingPolicy: bufferingPolicy)
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.subscribers[s.nextID] = channel
            return s.nextID
        }
        channel.setOnTermination { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return PositioningEvents(subscription: EventSubscription(channel: channel))
    }

    func send(_ event: PositioningEvent) { send(contentsOf: [event]) }

    /// Sends `events` in order to every subscriber, each taking them under one lock; the
    /// subscribers share the array.
    func send(contentsOf events: [PositioningEvent]) {
        let subscribers = state.withLock { $0.sendList }
        for s in subscribers { s.yield(contentsOf: events) }
    }
}
