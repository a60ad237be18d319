import HTTPServing
import Platform
public import GeoCore
import Synchronization

/// Live positions and fence events for WebSocket subscribers (`/live`): after each committed batch the writer
/// offers the batch's newest fix per device to the subscribers that follow that device (by name,
/// or by a bounding box holding the fix). Each subscriber has a bounded mailbox keeping only the
/// latest undelivered fix per device, so offering is a store under a lock (`Subscriber.offer`) and never
/// waits on a socket: a subscriber that reads slowly, or never, costs ingest nothing but that
/// store, and its memory is at most `maximumDevicesPerSubscriber` fixes. Each fix is encoded
/// once (its GeoJSON Feature, shared by all its followers), and each subscriber takes a batch's
/// fixes under one lock. A subscriber is told once that its mailbox has something (`whenDue`),
/// then not again until it takes: what arrives meanwhile joins the same message (`LiveDelivery`).
public final class LiveFanOut: Sendable {
    /// A fix offered to subscribers, with its GeoJSON Feature (`TrackOutput.feature`): a class,
    /// so that each of its followers' mailboxes holds it for one reference count (as a struct, its
    /// strings and bytes took three at each copy: `swift_retain` led the fan-out's samples).
    public final class LiveFix: Sendable {
        public let fix: StoredFix
        let feature: [UInt8]

        init(fix: StoredFix, feature: [UInt8]) {
            self.fix = fix
            self.feature = feature
        }
    }

    /// What a subscriber follows.
    public enum Filter: Sendable, Hashable {
        case devices(Set<String>)
        case box(BoundingBox)

        /// Whether it follows `device`, or (a box) holds the position at `latitude`, `longitude`,
        /// degrees. A box holds nothing without a position (an off-road matched answer): only
        /// followers by name get that.
        func matches(device: String, latitude: Double?, longitude: Double?) -> Bool {
            switch self {
            case .devices(let names): return names.contains(device)
            case .box(let box):
                guard let latitude, let longitude else { return false }
                return box.contains(Coordinate(uncheckedLatitude: latitude, longitude: longitude))
            }
        }
    }

    /// One subscriber's mailbox: the latest undelivered fix per device and its fence events, and
    /// whether a delivery is due.
    public final class Subscriber: Sendable {
        public let filter: Filter
        /// The address it connects from (`LiveFanOut.subscribe`'s fair shares).
        let client: String
        let maximumDevices: Int
        /// The devices a `.devices` subscriber follows, sorted: a fix's slot in its mailbox is its
        /// device's place here (`LiveFanOut.Follower`), so offering is an array store, and
        /// taking needs no sort by name (hashing and sorting names took a sixth of the fan-out's
        /// samples at 1,000 subscribers × 100 devices).
        let names: [String]
        struct Mailbox {
            /// `.devices`: the latest undelivered fix per followed device, by slot.
            var slots: [LiveFix?]
            /// The slots that hold a fix.
            var filled: [Int] = []
            /// `.box`: the latest undelivered fix per device.
            var byName: [String: LiveFix] = [:]

            var count: Int { filled.count + byName.count }
        }
        let mailbox: Mutex<Mailbox>
        /// Fixes not kept because the mailbox already held `maximumDevices` other devices.
        let dropped = Atomic<Int>(0)
        /// Fence events not yet sent, oldest first: at most `maximumDevices`, past that the
        /// oldest go (counted in `dropped`).
        let eventMailbox = Mutex<[FenceEvent]>([])
        /// The latest undelivered matched position per device (`LiveMatching`): at most
        /// `maximumDevices`, past that a new device's is not kept (counted in `dropped`).
        let matchedMailbox = Mutex<[String: LiveMatchedFix]>([:])
        /// Whether `whenDue` was called since the last `take`.
        let due = Atomic<Bool>(false)
        /// Called (on the publishing thread, so it must not wait) when the mailbox gets something
        /// while no delivery is due.
        let whenDue: @Sendable (Subscriber) -> Void
        /// Called once, off the registry's lock, when another client's subscriber took its place.
        let whenEvicted: @Sendable () -> Void

        init(filter: Filter, client: String, maximumDevices: Int, whenEvicted: @escaping @Sendable () -> Void,
             whenDue: @escaping @Sendable (Subscriber) -> Void) {
            self.filter = filter
            self.client = client
            self.maximumDevices = maximumDevices
            self.whenDue = whenDue
            self.whenEvicted = whenEvicted
            if case .devices(let followed) = filter { names = followed.sorted() } else { names = [] }
            mailbox = Mutex(Mailbox(slots: Array(repeating: nil, count: names.count)))
        }

        /// Calls `whenDue` unless a delivery is due already.
        private func makeDue() {
            if due.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { whenDue(self) }
        }

        /// Keeps each of `fixes` (by slot for a `.devices` subscriber, by name for a `.box`
        /// one) unless the mailbox holds a later fix of its device (never backwards).
        func offer(_ fixes: [(slot: Int, live: LiveFix)]) {
            let (kept, refused) = mailbox.withLock { box -> (Bool, Int) in
                var kept = false, refused = 0
                for (slot, live) in fixes {
                    let held = names.isEmpty ? box.byName[live.fix.device] : box.slots[slot]
                    if let held {
                        guard live.fix.fixTime > held.fix.fixTime else { continue }
                    } else if box.count >= maximumDevices {
                        refused += 1
                        continue
                    }
                    if names.isEmpty {
                        box.byName[live.fix.device] = live
                    } else {
                        if held == nil { box.filled.append(slot) }
                        box.slots[slot] = live
                    }
                    kept = true
                }
                return (kept, refused)
            }
            if refused > 0 { dropped.add(refused, ordering: .relaxed) }
            if kept { makeDue() }
        }

        /// Empties the mailboxes: the fixes to send, by device name, the fence events, oldest
        /// first, and the matched positions, by device name. What is offered after this makes a
        /// delivery due again.
        public func take() -> (fixes: [LiveFix], events: [FenceEvent], matched: [LiveMatchedFix]) {
            due.store(false, ordering: .sequentiallyConsistent)
            let fixes = mailbox.withLock { box -> [LiveFix] in
                guard names.isEmpty else {
                    box.filled.sort()
                    defer { box.filled.removeAll(keepingCapacity: true) }
                    return box.filled.map { slot in
                        defer { box.slots[slot] = nil }
                        return box.slots[slot]!
                    }
                }
                defer { box.byName.removeAll(keepingCapacity: true) }
                return box.byName.values.sorted { $0.fix.device < $1.fix.device }
            }
            let events = eventMailbox.withLock { box in
                defer { box.removeAll(keepingCapacity: true) }
                return box
            }
            let matched = matchedMailbox.withLock { box in
                defer { box.removeAll(keepingCapacity: true) }
                return box.values.sorted { $0.device < $1.device }
            }
            return (fixes, events, matched)
        }

        /// Keeps a matched position for delivery unless a later one of its device is held.
        func offer(matched: LiveMatchedFix) {
            let (kept, refused) = matchedMailbox.withLock { box -> (Bool, Bool) in
                if let held = box[matched.device] {
                    guard matched.fixTime > held.fixTime else { return (false, false) }
                } else if box.count >= maximumDevices {
                    return (false, true)
                }
                box[matched.device] = matched
                return (true, false)
            }
            if refused { dropped.add(1, ordering: .relaxed) }
            if kept { makeDue() }
        }

        /// Keeps a fence event for delivery.
        func offer(event: FenceEvent) {
            let overflow = eventMailbox.withLock { box -> Bool in
                box.append(event)
                guard box.count > maximumDevices else { return false }
                box.removeFirst()
                return true
            }
            if overflow { dropped.add(1, ordering: .relaxed) }
            makeDue()
        }

        /// How many fixes wait for delivery.
        public var pending: Int { mailbox.withLock { $0.count } }
    }

    /// The most devices one subscriber's mailbox holds.
    public let maximumDevicesPerSubscriber: Int
    /// A `.devices` subscriber of one device, and the device's slot in its mailbox.
    struct Follower {
        let subscriber: Subscriber
        let slot: Int
    }
    struct Registry {
        var byDevice: [String: [ObjectIdentifier: Follower]] = [:]
        var byBox: [ObjectIdentifier: Subscriber] = [:]
        /// Each client's subscribers, oldest first.
        var byClient: [String: [Subscriber]] = [:]
        var count = 0

        /// A place for a new subscriber: a free one, or one another subscriber gives up.
        enum Place {
            case free
            case givenUpBy(Subscriber)
        }

        /// Where a new subscriber of `client` goes when at most `maximum` may be connected: a
        /// free place, else the place of the newest subscriber of the client that holds the most,
        /// if that client holds at least two more than `client` does (so shares move toward
        /// equal: max-min fairness, as fair queuing shares a link); nil: refused.
        func place(for client: String, maximum: Int) -> Place? {
            guard count >= maximum else { return .free }
            let held = byClient[client]?.count ?? 0
            guard let most = byClient.values.max(by: { $0.count < $1.count }), most.count >= held + 2, let newest = most.last else { return nil }
            return .givenUpBy(newest)
        }

        mutating func add(_ subscriber: Subscriber) {
            let id = ObjectIdentifier(subscriber)
            switch subscriber.filter {
            case .devices: for (slot, name) in subscriber.names.enumerated() { byDevice[name, default: [:]][id] = Follower(subscriber: subscriber, slot: slot) }
            case .box: byBox[id] = subscriber
            }
            byClient[subscriber.client, default: []].append(subscriber)
            count += 1
        }

        /// Removes `subscriber`; false when it was not here (evicted before).
        mutating func remove(_ subscriber: Subscriber) -> Bool {
            guard let index = byClient[subscriber.client]?.firstIndex(where: { $0 === subscriber }) else { return false }
            byClient[subscriber.client]!.remove(at: index)
            if byClient[subscriber.client]!.isEmpty { byClient[subscriber.client] = nil }
            let id = ObjectIdentifier(subscriber)
            switch subscriber.filter {
            case .devices(let names):
                for name in names {
                    byDevice[name]?[id] = nil
                    if byDevice[name]?.isEmpty == true { byDevice[name] = nil }
                }
            case .box: byBox[id] = nil
            }
            count -= 1
            return true
        }
    }
    let registry = Mutex(Registry())
    /// The fix time of the last fix offered per device: an out-of-order fix (stored, but not
    /// the device's latest) is never pushed, so no subscriber sees a device move backwards.
    /// The store's own latest-fix decision cannot stand in for it: `publish` merges this
    /// instance's commits with the latest positions other instances' batches name
    /// (`PostgresPositionStore.followOtherInstances`): those may come after a later commit of
    /// ours, and come again after a lost connection (its replay).
    let offered = Mutex<[String: Int64]>([:])

    /// The most subscribers at once: each holds a socket, and subscribers that took every
    /// descriptor of the process would leave none for the trackers' requests and the store.
    public let maximumSubscribers: Int

    /// The least time between two messages of positions to one subscriber (`LiveDelivery`):
    /// what comes for it meanwhile joins the next.
    public let interval: Duration

    /// The default `interval`: 20 ms, under half of issue 35's 50 ms for ack → delivery at the
    /// 99th percentile, and at most 50 messages a second per subscriber.
    public static let defaultInterval = Duration.milliseconds(20)
    /// The intervals `geo serve-tracking --live-interval` takes, milliseconds.
    public static let intervalsInMilliseconds = ValidRange(0...1000, unit: "ms")

    /// - Parameter maximumSubscribers: by default half the process's open-file limit
    ///   (`RLIMIT_NOFILE`), at least 16.
    public init(maximumDevicesPerSubscriber: Int = 100_000, maximumSubscribers: Int = LiveFanOut.halfTheOpenFileLimit,
                interval: Duration = LiveFanOut.defaultInterval) {
        self.maximumDevicesPerSubscriber = maximumDevicesPerSubscriber
        self.maximumSubscribers = maximumSubscribers
        self.interval = interval
    }

    /// Half the process's open-file limit (its soft `RLIMIT_NOFILE`), at least 16.
    public static var halfTheOpenFileLimit: Int {
        let soft = OpenFileLimit.current.soft
        return soft == Int.max ? 1 << 20 : max(16, soft / 2)
    }

    /// A new subscriber of `client` (the address it connects from), or nil when
    /// `maximumSubscribers` are connected and no client holds two more than `client`; `unsubscribe`
    /// it when its connection ends. A client can so take every place while others want none,
    /// yet not keep another client out: a full server lets the client that holds the most
    /// subscribers give up its newest (`whenEvicted`), as a fair queue serves each flow in turn.
    /// - Parameters:
    ///   - whenEvicted: called (off the lock, once) when another client's subscriber took this
    ///     one's place; the subscriber is then no longer offered anything.
    ///   - whenDue: called with the subscriber when its mailbox gets something while no
    ///     delivery is due (on the publishing thread: it must not wait); `take` makes the next due.
    public func subscribe(_ filter: Filter, client: String = "", whenEvicted: @escaping @Sendable () -> Void = {},
                          whenDue: @escaping @Sendable (Subscriber) -> Void) -> Subscriber? {
        let subscriber = Subscriber(filter: filter, client: client, maximumDevices: maximumDevicesPerSubscriber,
                                    whenEvicted: whenEvicted, whenDue: whenDue)
        let place = registry.withLock { r -> Registry.Place? in
            let place = r.place(for: client, maximum: maximumSubscribers)
            if case .givenUpBy(let evicted) = place { _ = r.remove(evicted) }
            if place != nil { r.add(subscriber) }
            return place
        }
        switch place {
        case nil: return nil
        case .free: return subscriber
        case .givenUpBy(let evicted):
            evicted.whenEvicted()
            return subscriber
        }
    }

    /// Removes `subscriber` (nothing when it was evicted).
    public func unsubscribe(_ subscriber: Subscriber) {
        _ = registry.withLock { $0.remove(subscriber) }
    }

    /// How many subscribers are connected.
    public var subscriberCount: Int { registry.withLock { $0.count } }

    /// Offers a committed batch: its newest fix per device, to every subscriber that follows it.
    func publish(_ rows: [StoredFix]) {
        var newest: [String: StoredFix] = [:]
        newest.reserveCapacity(rows.count)
        for row in rows where newest[row.device].map({ row.fixTime > $0.fixTime }) ?? true { newest[row.device] = row }
        let advancing = offered.withLock { last in
            newest.values.filter { fix in
                guard last[fix.device].map({ fix.fixTime > $0 }) ?? true else { return false }
                last[fix.device] = fix.fixTime
                return true
            }
        }
        let (devices, boxes) = registry.withLock { r in (r.byDevice, Array(r.byBox.values)) }
        guard !devices.isEmpty || !boxes.isEmpty else { return }
        var offers: [ObjectIdentifier: (subscriber: Subscriber, fixes: [(slot: Int, live: LiveFix)])] = [:]
        for fix in advancing {
            var live: LiveFix?
            func give(_ subscriber: Subscriber, slot: Int) {
                if live == nil { live = LiveFix(fix: fix, feature: TrackOutput.feature(fix)) }
                offers[ObjectIdentifier(subscriber), default: (subscriber, [])].fixes.append((slot, live!))
            }
            if let followers = devices[fix.device] { for follower in followers.values { give(follower.subscriber, slot: follower.slot) } }
            for subscriber in boxes where subscriber.filter.matches(device: fix.device, latitude: fix.latitude, longitude: fix.longitude) { give(subscriber, slot: 0) }
        }
        for (subscriber, fixes) in offers.values { subscriber.offer(fixes) }
    }

    /// Offers stored fence events to every subscriber that follows their device (by name, or by
    /// a box holding the deciding fix), after the positions of their batch.
    func publish(events: [FenceEvent]) {
        let (devices, boxes) = registry.withLock { r in (r.byDevice, Array(r.byBox.values)) }
        guard !devices.isEmpty || !boxes.isEmpty else { return }
        for event in events {
            if let followers = devices[event.device] { for follower in followers.values { follower.subscriber.offer(event: event) } }
            for subscriber in boxes where subscriber.filter.matches(device: event.device, latitude: event.latitude, longitude: event.longitude) { subscriber.offer(event: event) }
        }
    }

    /// Offers matched positions (`LiveMatching`) to every subscriber that follows their device
    /// by name, or by a box holding the matched position.
    func publish(matched: [LiveMatchedFix]) {
        guard !matched.isEmpty else { return }
        let (devices, boxes) = registry.withLock { r in (r.byDevice, Array(r.byBox.values)) }
        for fix in matched {
            if let followers = devices[fix.device] { for follower in followers.values { follower.subscriber.offer(matched: fix) } }
            for subscriber in boxes where subscriber.filter.matches(device: fix.device, latitude: fix.latitude, longitude: fix.longitude) { subscriber.offer(matched: fix) }
        }
    }
}
