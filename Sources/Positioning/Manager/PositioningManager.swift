public import Foundation
public import GeoCore
public import MapMatching
public import Monitoring
public import Compass
public import TrackFiltering
public import GeoBase

/// How the manager delivers positions (HERE's `NMADevicePositioningMethod`).
public enum PositioningMethod: Sendable, Hashable {
    /// Every fix the source delivers (`…GPS`).
    case continuous
    /// Only significant movement, to save power (`…SignificantChanges`, seed 000): the source
    /// is asked for one fix a minute and rests between (`SourceDemand.checkInterval`: gpsd's
    /// watch is off, replays skip, a serial NMEA receiver is set to a 60 s fix interval, or
    /// MTK's longest 10 s), and a fix is delivered when it is at least 500 m from the
    /// last delivered one (TrackFiltering's `SignificantChangeGate`, with no heartbeat: a
    /// device that moves less is not reported again, as Core Location's service). The first
    /// fix is always delivered. A source that cannot rest (an NMEA TCP stream, an app's own
    /// feed) still delivers every fix to the gate.
    case significantChanges
}

extension Notification.Name {
    /// Posted with `object` the manager, `userInfo["location"]` the new `Location` and
    /// `userInfo["locations"]` every `[Location]` delivered since the last post, oldest first
    /// (HERE's `NMAPositioningManagerDidUpdatePositionNotification`). One post per fix from a
    /// source that delivers fixes one at a time (a receiver, gpsd); one per run of updates in a
    /// batch from a batch source (a fast replay), `location` being the batch's latest — as Core
    /// Location's `didUpdateLocations` hands over several fixes at once.
    public static let positioningManagerDidUpdatePosition = Notification.Name("PositioningManagerDidUpdatePosition")
    /// Posted with `object` the manager when the position is lost
    /// (HERE's `NMAPositioningManagerDidLosePositionNotification`).
    public static let positioningManagerDidLosePosition = Notification.Name("PositioningManagerDidLosePosition")
}

/// The positioning engine: reads a `PositionSource`, keeps the latest position and fans events
/// out to subscribers, the delegate and `NotificationCenter` (DESIGN.md §1, HERE's
/// `NMAPositioningManager`).
///
/// Rules that hold:
/// - `currentPosition` is `mapMatchedPosition` when map matching is on and the matcher is at
///   least `minimumMatchConfidence` sure, else `rawPosition`; nil while stopped or lost. The
///   track filter's estimate is `filteredPosition`, and `.updated` carries it (or the match).
/// - A `.locationUnknown` or `.io` failure is reported and the source restarted after a backoff
///   of 1, 2, 4 … 30 s on the manager's clock; `.sourceUnavailable` and `.invalidConfiguration`
///   are reported and stop the manager.
/// - Authorization on Linux is the right to open the positioning device: a source that is
///   refused (a device node without permission, EACCES / EPERM: `PositioningError.denied`)
///   makes the status `.denied` — one `.failed(.denied)` and one `.authorizationChanged(.denied)`
///   — and the manager keeps trying to open it on the same backoff, silently; once access is
///   granted (the permission changed) and a fix arrives, `.authorizationChanged(.authorized)`
///   and delivery resumes. `stop()` ends the waiting.
/// - Every fix the track filter drops is reported as `.rejected(fix, reason)` and counted in
///   `filterReport`; nothing is dropped silently.
/// - With `pausesLocationUpdatesAutomatically`, a stationary device (see `StationaryDetector`)
///   produces one `.paused`, no updates, then `.resumed` with the next moving fix.
public actor PositioningManager {
    /// The process-wide manager on the default device source (HERE's `sharedPositioningManager`).
    public static let shared = PositioningManager()

    /// The source in use; nil means the default device source, resolved at `start`.
    public private(set) var dataSource: (any PositionSource)?
    /// Track filtering, stationary detection and the lost-position timeout.
    public var configuration: LiveConfiguration = .default
    /// Whether a stationary device pauses updates (Core Location's property of the same name).
    public var pausesLocationUpdatesAutomatically = true
    /// Core Location's `activityType` (`setActivityType`): which preset `configuration` is.
    public internal(set) var activityType: ActivityType = .other
    /// Core Location's `desiredAccuracy` (`setDesiredAccuracy`); `.accuracyBest` by default.
    public internal(set) var desiredAccuracy: Distance = .accuracyBest
    /// Core Location's `distanceFilter` (`setDistanceFilter`); nil keeps the preset's own.
    public internal(set) var distanceFilter: Distance?
    /// Whether live positions are map-matched (off by default, as in HERE's SDK).
    public var mapMatchingEnabled: Bool { pipeline.mapMatchingEnabled }
    /// Which roads positions are matched to.
    public var mapMatchMode: MapMatchMode = .car
    /// The matcher confidence at or above which `currentPosition` is the matched position: 0.5,
    /// so the published road state is more likely than all other states together (the
    /// other direction, a parallel road, off-road).
    public var minimumMatchConfidence: Double { pipeline.minimumMatchConfidence }
    /// How `start` was last called.
    public private(set) var method: PositioningMethod = .continuous
    /// Whether positioning runs.
    public private(set) var isRunning = false
    /// Whether delivery is paused because the device is stationary.
    public var isPaused: Bool { pipeline.isPaused }
    /// The source's authorization as last reported.
    public private(set) var authorizationStatus: AuthorizationStatus = .notDetermined
    /// The latest fix exactly as the source delivered it.
    public var rawPosition: Location? { pipeline.rawPosition }
    /// The latest fix the configuration's track filter delivered (the Kalman estimate when it
    /// runs); equal to `rawPosition` without a filter.
    public var filteredPosition: Location? { pipeline.filteredPosition }
    /// What the track filter dropped, and why, since the last start.
    public var filterReport: FilterReport { pipeline.gate.cleaner?.report ?? FilterReport() }
    /// The latest map-matched fix; nil while map matching is off or nothing matched.
    public var mapMatchedPosition: Location? { pipeline.matched?.location }
    /// The matcher's confidence in `mapMatchedPosition`, in [0, 1]; 0 while nothing matched.
    public var mapMatchConfidence: Double { pipeline.matched?.confidence ?? 0 }
    /// Mean ground speed over the fixes of the last `averageSpeedWindow` (reported speeds,
    /// else speeds implied by consecutive positions; TrackFiltering's `AverageSpeedWindow`);
    /// nil until a fix has a speed or a second fix implies one.
    public var averageSpeed: Speed? { pipeline.speeds.average }
    /// The window `averageSpeed` averages over; 60 s by default.
    public var averageSpeedWindow: Duration {
        get { pipeline.speeds.duration }
        set { pipeline.speeds.duration = newValue }
    }
    /// Whether updates and losses are also posted to `NotificationCenter.default` (the classic
    /// names); on by default. Apps that only use `events()` or the delegate can turn it off to
    /// save the cost of one `Notification` per post (per fix from a one-fix source).
    public var postsNotifications = true

    /// Sleeps on the injected clock (retry backoff, beacon ranging's report interval).
    let sleep: @Sendable (Duration) async throws -> Void
    /// Time on the injected clock since the manager was made.
    let elapsed: @Sendable () -> Duration
    /// The wall-clock reading taken when a fix arrives: the receive time the stale-fix rule
    /// judges it by.
    let now: @Sendable () -> Date
    /// Wraps a source in a `LostPositionWatchdog` on the injected clock.
    private let watched: @Sendable (any PositionSource, Duration) -> any PositionSource
    private let broadcaster = EventBroadcaster()
    weak var delegate: (any PositioningDelegate)?
    private var matcher: (any LivePositionMatcher)?
    private var run: Task<Void, Never>?
    private var generation = 0
    /// Regions, stationary pause, the track filter, visits, matching's confidence rule and the
    /// significant-change gate: everything a fix goes through, without the source and fan-out.
    var pipeline = FixPipeline()
    /// The pipeline's events for one fix, before `emit` (kept to reuse its storage).
    private var pipelineEvents: [PositioningEvent] = []
    var delegateQueue: [DelegateCall] = []
    /// Whether events are being gathered in `outgoing` (while a source batch is handled).
    private var gathersEvents = false
    /// The events of the source batch being handled, sent to each subscriber together when the
    /// batch ends or before the manager waits on the matcher: one lock and at most one wake-up
    /// per subscriber per batch rather than per event, the order unchanged.
    private var outgoing: [PositioningEvent] = []
    /// The updates not yet posted to `NotificationCenter` (see `positioningManagerDidUpdatePosition`).
    private var unpostedUpdates: [Location] = []
    var delegateBusy = false
    /// Fixes held back from the delegate while deferred delivery is allowed.
    private var deferred: DeferredUpdates?
    /// The latest heading delivered (`PositioningManager+Heading.swift`), magnetic and true
    /// resolved where possible; nil until heading updates delivered one.
    public internal(set) var heading: Heading?
    /// The delegate's last answer to `positioningManagerShouldDisplayHeadingCalibration`:
    /// whether the app shows its compass calibration guidance now (false again after
    /// `dismissHeadingCalibrationDisplay()` or a heading that needs no calibration).
    public internal(set) var isDisplayingHeadingCalibration = false
    /// Counts the times the calibration display was taken down (dismissed, or a heading that
    /// needs no calibration): an answer to a question asked before one of them is stale.
    var calibrationDisplayEndings = 0
    /// Heading updates: on or off, the filter, calibration and failure state.
    var headingUpdates = HeadingUpdates()
    private let defaultSource: @Sendable () throws -> any PositionSource
    /// The regions of `startMonitoring(for:)`, by identifier.
    public var monitoredRegions: [String: MonitoredRegion] { pipeline.regions.regions }
    /// Beacon ranging and the scan behind it and beacon regions (`PositioningManager+Beacons.swift`).
    var beaconRanging = BeaconRangingState()

    /// Creates a manager on `source`; nil uses the default device source of the platform.
    /// - Parameters:
    ///   - clock: times the lost-position timeout and retry backoff (a `ManualClock` in tests).
    ///   - now: the wall clock fixes are stamped with on arrival (receive time).
    public init<C: Clock>(source: (any PositionSource)? = nil, clock: C,
                          now: @escaping @Sendable () -> Date = { Date() }) where C.Duration == Duration {
        self.dataSource = source
        self.now = now
        self.sleep = { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.watched = { LostPositionWatchdog($0, timeout: $1, clock: clock) }
        self.defaultSource = { try DeviceSource.resolve() }
    }

    /// Creates a manager on `source`, timed by the continuous clock; nil uses the default
    /// device source of the platform.
    public init(source: (any PositionSource)? = nil) {
        self.init(source: source, clock: ContinuousClock())
    }

    /// The position to show (HERE's `currentPosition`, seed 000): the map-matched position when
    /// matching is on and the matcher is at least `minimumMatchConfidence` sure, else the raw
    /// position as the source delivered it; nil while stopped and while the position is lost
    /// (from `.lost` until the next fix). The track filter's estimate is `filteredPosition`.
    public var currentPosition: Location? {
        guard isRunning, !isPositionLost else { return nil }
        return confidentMatch ?? rawPosition
    }

    /// Whether the source reported the position lost and no fix has arrived since.
    public private(set) var isPositionLost = false

    /// The map-matched position when matching is on and confident enough, else nil.
    private var confidentMatch: Location? { pipeline.confidentMatch }

    /// Replaces the source; a running manager switches to it at once.
    public func setDataSource(_ source: (any PositionSource)?) {
        dataSource = source
        if isRunning { launch() }
    }

    /// Sets the delegate (held weakly).
    public func setDelegate(_ delegate: (any PositioningDelegate)?) { self.delegate = delegate }

    /// Turns the classic `NotificationCenter` posts on or off (see `postsNotifications`).
    public func setPostsNotifications(_ posts: Bool) { postsNotifications = posts }

    /// Sets the live map matcher used when `mapMatchingEnabled` is on.
    public func setMapMatcher(_ matcher: (any LivePositionMatcher)?) { self.matcher = matcher }

    /// Turns map matching on or off; off clears `mapMatchedPosition`.
    public func setMapMatchingEnabled(_ enabled: Bool, mode: MapMatchMode? = nil) {
        pipeline.mapMatchingEnabled = enabled
        if let mode { mapMatchMode = mode }
    }

    /// Sets the minimum confidence for `currentPosition` to be the matched position.
    public func setMinimumMatchConfidence(_ confidence: Double) { pipeline.minimumMatchConfidence = confidence }

    /// Sets the stationary / lost-timeout parameters; takes effect at the next start.
    public func setConfiguration(_ configuration: LiveConfiguration, pausesAutomatically: Bool = true) {
        self.configuration = configuration
        self.pausesLocationUpdatesAutomatically = pausesAutomatically
    }

    /// A new subscription to every event from now on, with its own buffer: by default the 256
    /// newest undelivered events are kept and older ones dropped, so a stalled subscriber never
    /// holds memory without bound. Cancelling its task or dropping the iterator unsubscribes.
    public nonisolated func events(bufferingPolicy: AsyncStream<PositioningEvent>.Continuation.BufferingPolicy = .bufferingNewest(256)) -> PositioningEvents {
        broadcaster.subscribe(bufferingPolicy: bufferingPolicy)
    }

    /// The number of live subscriptions (they end when their consumers go away).
    public nonisolated var subscriberCount: Int { broadcaster.subscriberCount }

    /// Starts positioning; true when it runs (or already ran), false when no source can be had,
    /// in which case a `.failed(.sourceUnavailable)` event says why.
    @discardableResult
    public func start(_ method: PositioningMethod = .continuous) -> Bool {
        let changed = method != self.method
        self.method = method
        if isRunning {
            if changed { launch() } // the source is asked for another demand
            return true
        }
        if dataSource == nil {
            do {
                dataSource = try defaultSource()
            } catch {
                let failure = error as? PositioningError ?? PositioningError(.sourceUnavailable, "\(error)")
                emit(.failed(failure))
                return false
            }
        }
        isRunning = true
        launch()
        return true
    }

    /// Stops positioning and the source; `currentPosition` becomes nil.
    public func stop() {
        guard isRunning else { return }
        finishRun()
    }

    /// Starts reporting visits (Core Location's `startMonitoringVisits()`): every fix the source
    /// delivered (before the track filter, which holds back a still device's fixes), paused or
    /// not, goes through a `VisitDetector`; arrivals (while the stay goes on) and departures are
    /// `.visit` events and the delegate's `didVisit`.
    /// - Throws: `GeoCoreError` when the configuration is invalid.
    public func startMonitoringVisits(_ configuration: VisitDetector.Configuration = .init()) throws(GeoCoreError) {
        pipeline.visits = try VisitDetector(configuration: configuration)
    }

    /// Stops reporting visits; a visit in progress is forgotten.
    public func stopMonitoringVisits() { pipeline.visits = nil }

    /// Holds fixes back from the delegate until the device has travelled `distance` or
    /// `timeout` has passed (by the fixes' times), then delivers them in one
    /// `didUpdateLocations` batch and calls `didFinishDeferredUpdates(error: nil)` (Core
    /// Location's `allowDeferredLocationUpdates(untilTraveled:timeout:)`). `events()`
    /// subscribers are not held back. Pass `Distance(meters: .infinity)` for no distance limit.
    /// - Throws: `PositioningError` `.invalidConfiguration` for a limit that is not positive.
    public func allowDeferredLocationUpdates(untilTraveled distance: Distance, timeout: Duration) throws(PositioningError) {
        deferred = try DeferredUpdates(untilTraveled: distance, timeout: timeout)
    }

    /// Ends deferred delivery: the held fixes go to the delegate at once, then
    /// `didFinishDeferredUpdates` with `.deferredCanceled`.
    public func disallowDeferredLocationUpdates() {
        finishDeferral(PositioningError(.deferredCanceled, "deferred updates disallowed"))
    }

    /// Hands the held fixes to the delegate and reports the end of deferral.
    private func finishDeferral(_ error: PositioningError?) {
        guard let ended = deferred else { return }
        deferred = nil
        for location in ended.held { enqueueForDelegate(.updated(location)) }
        emit(.deferredUpdatesFinished(error))
    }

    // MARK: - Running the source

    private func launch() {
        run?.cancel()
        generation += 1
        pipeline.restart(effectiveConfiguration, pausesAutomatically: pausesLocationUpdatesAutomatically)
        isPositionLost = false
        guard let dataSource else { return }
        // The source makes only the fixes wanted (`SourceDemand`); the lost-position timeout
        // waits out its rests.
        let demand = sourceDemand
        let adjusted = demand == .everyFix ? dataSource : (dataSource as? any DemandAdjustableSource)?.adjusted(to: demand) ?? dataSource
        let source = watched(adjusted, configuration.lostTimeout + (demand.checkInterval ?? .zero))
        let token = generation
        let batched = adjusted is any BatchPositionSource
        run = Task { await self.consume(source, batched: batched, generation: token) }
    }

    /// Reads `source` until it ends, fails for good or the run is replaced; `batched` reads it
    /// on the batch path (`BatchPositionSource`; the watchdog passes batches on), one event at
    /// a time all the same, so a stop in the middle of a batch drops the rest of it.
    private func consume(_ source: any PositionSource, batched: Bool, generation token: Int) async {
        let arrival = LiveUpdateGate.arrivalTime(from: source, now: now)
        var failures = 0
        /// Whether the last attempt was refused: further refusals are not reported again.
        var refused = false
        while !Task.isCancelled, token == generation {
            do {
                if batched, let source = source as? any BatchPositionSource {
                    for try await batch in source.eventBatches() {
                        guard token == generation else { return }
                        failures = 0
                        refused = false
                        await handle(batch, receivedAt: arrival(), generation: token)
                    }
                } else {
                    for try await event in source.events() {
                        guard token == generation else { return }
                        failures = 0
                        refused = false
                        await handle(event, receivedAt: arrival(), generation: token)
                    }
                }
                if token == generation, !Task.isCancelled { finishRun() }
                return
            } catch {
                guard token == generation, !Task.isCancelled else { return }
                let failure = error as? PositioningError ?? PositioningError(.locationUnknown, "\(source.name): \(error)", underlying: error)
                if failure.code == .denied {
                    if !refused { emit(.failed(failure)) }
                    if authorizationStatus != .denied {
                        authorizationStatus = .denied
                        emit(.authorizationChanged(.denied))
                    }
                    refused = true
                } else {
                    emit(.failed(failure))
                }
                guard failure.code == .locationUnknown || failure.code == .io || failure.code == .denied else {
                    finishRun()
                    return
                }
                failures += 1
                let backoff = Duration.seconds(min(1 << min(failures - 1, 5), 30))
                do { try await sleep(backoff) } catch { return }
            }
        }
    }

    private func finishRun() {
        run?.cancel()
        run = nil
        generation += 1
        isRunning = false
        pipeline.stop()
        emit(.stopped)
    }

    /// Applies a batch of source events of run `token` in order, as one event at a time: the
    /// batch arrived at once, so its fixes share one receive time. The events it causes reach
    /// subscribers together at its end (see `outgoing`); a stop in its middle drops the rest.
    private func handle(_ batch: [PositionSourceEvent], receivedAt: Date?, generation token: Int) async {
        gathersEvents = true
        defer {
            gathersEvents = false
            sendGatheredEvents()
        }
        for event in batch {
            guard token == generation else { return }
            if waitsOnMatcher(event) {
                await handle(event, receivedAt: receivedAt, generation: token)
            } else {
                apply(event, receivedAt: receivedAt)
            }
        }
    }

    /// Whether handling `event` waits on the map matcher: a fix while matching is on. Every
    /// other event is applied without suspending (`apply`), which keeps a fast batch free of
    /// the per-event cost of an async call.
    private func waitsOnMatcher(_ event: PositionSourceEvent) -> Bool {
        guard mapMatchingEnabled, matcher != nil, case .location = event else { return false }
        return true
    }

    /// Applies one source event of run `token`, received at `receivedAt`; a fix whose map
    /// matching outlasts its run (the manager stopped or restarted meanwhile) is dropped.
    private func handle(_ event: PositionSourceEvent, receivedAt: Date?, generation token: Int) async {
        guard waitsOnMatcher(event), case .location(let location) = event, let matcher else {
            apply(event, receivedAt: receivedAt)
            return
        }
        guard let filtered = admit(location, receivedAt: receivedAt) else { return }
        let mode = mapMatchMode
        // Nothing gathered waits on the matcher (which may take long, or a stop meanwhile).
        let gathering = gathersEvents
        sendGatheredEvents()
        gathersEvents = false
        let matched = await matcher.match(filtered, mode: mode)
        gathersEvents = gathering
        guard token == generation else { return }
        deliver(filtered, raw: location, matched: matched)
    }

    /// Applies a source event that does not wait on the matcher (see `waitsOnMatcher`).
    private func apply(_ event: PositionSourceEvent, receivedAt: Date?) {
        switch event {
        case .lost:
            isPositionLost = true
            emit(.lost)
        case .authorizationChanged(let status):
            authorizationStatus = status
            emit(.authorizationChanged(status))
        case .heading(let heading):
            receiveHeading(heading)
        case .location(let location):
            if let filtered = admit(location, receivedAt: receivedAt) { deliver(filtered, raw: location, matched: nil) }
        }
    }

    /// The first half of handling a fix, before map matching: authorization, then the
    /// pipeline's `admit`. Returns the filtered fix to deliver, or nil when the filter dropped it.
    private func admit(_ location: Location, receivedAt: Date?) -> Location? {
        if authorizationStatus != .authorized {
            authorizationStatus = .authorized
            emit(.authorizationChanged(.authorized))
        }
        isPositionLost = false
        let filtered = pipeline.admit(location, receivedAt: receivedAt, into: &pipelineEvents)
        emitPipelineEvents()
        return filtered
    }

    /// The second half of handling a fix, after map matching (when on): the pipeline's `deliver`.
    private func deliver(_ location: Location, raw: Location, matched: MatchedPosition?) {
        pipeline.deliver(location, raw: raw, matched: matched, method: method, into: &pipelineEvents)
        emitPipelineEvents()
    }

    /// Emits what the pipeline appended, in order.
    func emitPipelineEvents() {
        guard !pipelineEvents.isEmpty else { return }
        var events: [PositioningEvent] = []
        swap(&events, &pipelineEvents) // the buffer is handed back below, its storage reused
        for event in events { emit(event) }
        events.removeAll(keepingCapacity: true)
        pipelineEvents = events
    }

    // MARK: - Fan-out

    func emit(_ event: PositioningEvent) {
        if gathersEvents { outgoing.append(event) } else { broadcaster.send(event) }
        if postsNotifications { postNotification(for: event) }
        guard delegate != nil else { return }
        if case .updated(let location) = event, deferred != nil {
            if deferred?.hold(location) == true { finishDeferral(nil) }
            return
        }
        if case .stopped = event { finishDeferral(PositioningError(.deferredCanceled, "positioning stopped")) }
        enqueueForDelegate(event)
    }

    /// Queues an event for the delegate, draining the queue unless a drain runs.
    private func enqueueForDelegate(_ event: PositioningEvent) { enqueueForDelegate(.event(event)) }

    /// Queues `positioningManagerShouldDisplayHeadingCalibration` for the delegate, before the
    /// heading that raised it (`updateHeading(_:)`); the answer is `isDisplayingHeadingCalibration`.
    func askHeadingCalibration() {
        guard delegate != nil else { return }
        enqueueForDelegate(.headingCalibration(endings: calibrationDisplayEndings))
    }

    private func enqueueForDelegate(_ call: DelegateCall) {
        delegateQueue.append(call)
        if !delegateBusy {
            delegateBusy = true
            Task { await self.drainDelegateQueue() }
        }
    }

    /// Sends the events gathered from a batch to the subscribers and posts its updates.
    private func sendGatheredEvents() {
        postUpdates()
        guard !outgoing.isEmpty else { return }
        broadcaster.send(contentsOf: outgoing)
        outgoing.removeAll(keepingCapacity: true)
    }

    /// Posts `event` to `NotificationCenter`; updates wait in `unpostedUpdates` while a batch
    /// is gathered, so a batch's run of updates is one post.
    private func postNotification(for event: PositioningEvent) {
        switch event {
        case .updated(let location):
            unpostedUpdates.append(location)
            if !gathersEvents { postUpdates() }
        case .lost:
            postUpdates()
            NotificationCenter.default.post(name: .positioningManagerDidLosePosition, object: self)
        default: break
        }
    }

    /// Posts the waiting updates as one `positioningManagerDidUpdatePosition`.
    private func postUpdates() {
        guard let latest = unpostedUpdates.last else { return }
        NotificationCenter.default.post(name: .positioningManagerDidUpdatePosition, object: self,
                                        userInfo: ["location": latest, "locations": unpostedUpdates])
        unpostedUpdates.removeAll(keepingCapacity: true)
    }
}
