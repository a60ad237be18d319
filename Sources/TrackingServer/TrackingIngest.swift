public import Foundation
public import MapMatching
public import NIOCore
import GeoCore
import HTTPServing
import Synchronization
import SystemIO
public import TrackingProtocols

/// What the server does with a fix from a device it has not registered.
public enum UnknownDevicePolicy: String, Sendable {
    /// Refuse it (HTTP 403): devices are registered beforehand (`--device`).
    case refuse
    /// Register the device with the default settings, in the transaction of its first fixes.
    case register
}

/// Why fixes were not acknowledged.
public struct IngestError: Error, CustomStringConvertible {
    public enum Kind: Sendable { case unknownDevice, storageUnavailable }
    public var kind: Kind
    public var message: String
    public var description: String { message }
}

/// The protocol-independent core of ingest: decides whether the devices may send (from memory,
/// no query per request), hands the fixes to the group committer and returns once they are
/// durable. Every protocol's route acknowledges only after `ingest` returned.
public final class TrackingIngest: Sendable {
    let store: any PositionStore
    let committer: PartCommitters
    let policy: UnknownDevicePolicy
    public let metrics: TrackingMetrics
    /// Live subscribers (`/live`), offered every committed batch.
    public let live: LiveFanOut
    /// Registered devices, loaded at start and extended after commits that registered some.
    let devices: Mutex<[String: DeviceSettings]>

    /// Geofences decided after the ack (`FenceMonitor`), with `fences`.
    let fenceMonitor: FenceMonitor?
    /// The devices matched live after the ack (`LiveMatching`), with `liveMatching`.
    let liveMatching: LiveMatching?
    /// The road matcher of `track=matched` reads, or nil (`--roads`).
    let matcher: MapMatcher?
    /// The batches other instances commit (`PositionStore.followOtherInstances`), pushed to this
    /// one's `/live` and offered to its fence decisions and live matching, and the fence events
    /// they store, pushed to its `/live`.
    let follower: Task<Void, Never>
    /// The soft open-file limit before and after `init` raised it to the hard one (`OpenFileLimit`).
    public let openFiles: (before: Int, after: Int)
    /// Read replies holding fixes read for them (`TrackingRoutes.read`): `pages`, a raw track's
    /// page each (8,192 fixes, 1.1 MB; SQLite's pages were of 32,768, 4.4 MB, when 50 clients
    /// asking at once held 50 of them); `wholeTracks`, a cleaned or matched track from its
    /// first read to its last byte sent (a device-day as GPX held 11 MB for each client that
    /// read none of it, until it left). A reply whose client takes nothing lets go of its turn
    /// for another (`TrackingRoutes.paged`, `TrackingRoutes.wholeTrack`).
    let readTurns = (pages: Turns(maximum: 8), wholeTracks: Turns(maximum: 4))

    /// - Parameters:
    ///   - devices: devices to register (or whose settings to update) before serving.
    ///   - fences: geofences to decide after each commit; nil for none.
    ///   - matcher: the roads of `track=matched` reads (`TrackRoads.matcher(osmFile:)`); nil for none.
    ///   - liveMatching: the devices whose fixes are cleaned and matched live after the ack, and
    ///     over which roads; nil for none.
    ///   - liveInterval: the least time between two `/live` messages to one subscriber (`LiveFanOut.interval`).
    ///   - maximumLiveSubscribers: the most `/live` subscribers at once (`LiveFanOut.maximumSubscribers`);
    ///     nil for half the open-file limit.
    ///   - note: gets the store's failures as lines for the log, a few per outage (`StoreFailureLog`).
    /// - Throws: the store's error, `MonitoringError` for an unusable fence, `WebhookURLError`.
    ///
    /// Raises the process's soft open-file limit to its hard one first (`OpenFileLimit`): the
    /// trackers' connections and the `/live` subscribers (at most half the limit) take one each.
    public init(store: any PositionStore, policy: UnknownDevicePolicy, devices: [DeviceSettings] = [], fences: FenceOptions? = nil,
                matcher: MapMatcher? = nil, liveMatching: LiveMatchingOptions? = nil, batchRows: Int = 1000, batchWait: Duration = .milliseconds(5),
                liveInterval: Duration = LiveFanOut.defaultInterval, maximumLiveSubscribers: Int? = nil,
                note: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        openFiles = OpenFileLimit.raiseSoftToHard()
        if !devices.isEmpty { try await store.register(devices) }
        let known = try await store.devices()
        self.store = store
        self.policy = policy
        self.matcher = matcher
        let metrics = TrackingMetrics(note: note), live = LiveFanOut(maximumSubscribers: maximumLiveSubscribers ?? LiveFanOut.halfTheOpenFileLimit, interval: liveInterval)
        self.metrics = metrics
        self.devices = Mutex(Dictionary(known.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }))
        self.live = live
        var monitor: FenceMonitor? = nil
        if let fences { monitor = try FenceMonitor(fences, store: store, metrics: metrics, live: live) }
        self.fenceMonitor = monitor
        let matching = liveMatching.map { LiveMatching($0, metrics: metrics, live: live) }
        self.liveMatching = matching
        let afterAck: [any AfterAck] = [monitor as (any AfterAck)?, matching].compactMap { $0 }
        self.committer = PartCommitters(store: store, metrics: metrics, live: live, afterAck: afterAck, maximumRows: batchRows, maximumWait: batchWait)
        follower = Task {
            await store.followOtherInstances { news in
                switch news {
                case .fixes(let rows):
                    live.publish(rows)
                    for consumer in afterAck { consumer.offer(rows, acknowledged: nil) }
                case .events(let events):
                    live.publish(events: events)
                }
            }
        }
    }

    /// Whether a device may send: registered, or unknown devices are registered.
    public func accepts(device: String) -> Bool {
        policy == .register || devices.withLock { $0[device] != nil }
    }

    /// The OsmAnd speed unit of a device (m/s for devices not registered).
    public func speedUnit(for device: String) -> OsmAndSpeedUnit {
        devices.withLock { $0[device]?.osmAndSpeedUnit ?? .metersPerSecond }
    }

    /// Stores `fixes` durably; returns when their group commit has.
    /// - Throws: `IngestError` `.unknownDevice` (nothing stored) or `.storageUnavailable`.
    public func ingest(_ fixes: [TrackedFix], receivedAt: Date) async throws(IngestError) {
        try await withCheckedContinuation { continuation in ingest(fixes, receivedAt: receivedAt) { continuation.resume(returning: $0) } }.get()
    }

    /// Stores `fixes` durably, then calls `completion` once their group commit has, or with
    /// `IngestError` `.unknownDevice` (nothing stored) or `.storageUnavailable`. It is called on
    /// `loop` when one is given (the commit's requests of one loop share a task there), else on
    /// the committer's thread, where it must not block; on this one when nothing is to be
    /// committed.
    public func ingest(_ fixes: [TrackedFix], receivedAt: Date, completingOn loop: (any EventLoop)? = nil,
                       completion: @escaping @Sendable (Result<Void, IngestError>) -> Void) {
        guard !fixes.isEmpty else { return completion(.success(())) }
        var unknown: Set<String> = []
        devices.withLock { known in for f in fixes where known[f.device] == nil { unknown.insert(f.device) } }
        if !unknown.isEmpty, policy == .refuse {
            metrics.refusedUnknownDevice()
            return completion(.failure(IngestError(kind: .unknownDevice, message: "unknown device \(unknown.sorted().joined(separator: ", "))")))
        }
        let at = Int64((receivedAt.timeIntervalSince1970 * 1000).rounded())
        committer.commit(fixes.map { StoredFix($0, receivedAt: at) }, completingOn: loop) { [self, unknown, count = fixes.count] result in
            if case .failure(let error) = result {
                return completion(.failure(IngestError(kind: .storageUnavailable, message: "storage unavailable: \(error)")))
            }
            if !unknown.isEmpty {
                devices.withLock { known in for name in unknown where known[name] == nil { known[name] = DeviceSettings(name: name) } }
            }
            metrics.acknowledged(count)
            completion(.success(()))
        }
    }

    /// A device's fixes between two times (milliseconds since 1970, `from` included), at most
    /// `limit`, a page of the store's `readPageSize` at a time.
    public func positions(device: String, from: Int64, to: Int64, limit: Int) -> FixPages {
        FixPages(store: store, device: device, from: from, to: to, limit: limit, size: store.readPageSize)
    }

    /// Fence events between two times (milliseconds since 1970, `from` included), of one device
    /// or (nil) of all.
    public func events(device: String?, from: Int64, to: Int64, limit: Int) async throws -> [FenceEvent] {
        try await store.events(device: device, from: from, to: to, limit: limit)
    }

    /// Retention, until the task is cancelled: removes the UTC days that ended more than `days`
    /// × 24 h ago (`FixDay.firstKept`), now and then every `interval`. A pass the store refuses
    /// (database down) is counted in `tracking_retention_failures_total` and made again at the next.
    public func retainHistory(days: Int, every interval: Duration = .seconds(3600)) async {
        while !Task.isCancelled {
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            do {
                try await store.removeDays(before: FixDay.firstKept(retentionDays: days, now: now))
                metrics.storeSucceeded(.retention)
            } catch {
                metrics.storeFailed(.retention, error)
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Gives the heap's free pages back to the system (`FreedHeapMemory`) when the resident set
    /// has grown by more than `growth` (a fraction) over its floor, looking every `interval`: the
    /// server's resident set then follows what it holds rather than the peak of its last backlog
    /// of requests. Only on growth, because a release holds each malloc arena while it walks it,
    /// and every thread allocating there waits: at 19,900 devices a release every 10 s took
    /// 7–37 ms on average and up to 250 ms while the machine was overloaded (tracking.sh,
    /// 2026-12-04). Asking malloc what it holds free (`mallinfo2`) walks the same free lists: 30
    /// ms for 190,000 free chunks, as long as the release (2026-12-05), so growth is read from
    /// the resident set. A release that gave back little waits twice as long for the next look,
    /// up to `longest`. Ends when its task is cancelled.
    public func releaseFreedMemory(every interval: Duration = .seconds(10), longest: Duration = .seconds(320),
                                   growth: Double = 0.02) async {
        var floor = FreedHeapMemory.residentBytes()
        var wait = interval
        while !Task.isCancelled {
            do { try await Task.sleep(for: wait) } catch { return }
            let look = releaseFreedMemory(ifGrownOver: floor, by: growth)
            floor = look.floor
            wait = look.gaveBackLittle ? min(wait * 2, longest) : interval
        }
    }

    /// One look of ``releaseFreedMemory(every:longest:growth:)``: releases (and counts it) when
    /// the resident set is above `floor` bytes by more than `growth`. Returns the floor for the
    /// next look — the resident set before a release that gave back at least half of the growth,
    /// else the least seen — and whether a release gave back less. (Not the level after a
    /// release: the server's working set takes the pages it gave back again within seconds, and
    /// from that floor each refill counted as growth; at 19,900 devices a release then ran every
    /// 10 s, giving back 27 MB each time. Nor the level before one that gave back little: then a
    /// backlog's requests, held, not free, made the growth, and that floor kept their peak once
    /// they were freed.)
    func releaseFreedMemory(ifGrownOver floor: Int?, by growth: Double) -> (floor: Int?, gaveBackLittle: Bool) {
        guard let resident = FreedHeapMemory.residentBytes(), let floor else {
            return (floor ?? FreedHeapMemory.residentBytes(), false)
        }
        guard Double(resident) > Double(floor) * (1 + growth) else { return (min(floor, resident), false) }
        let start = ContinuousClock.now
        let bytes = FreedHeapMemory.release()
        metrics.releasedMemory(bytes: bytes, seconds: (ContinuousClock.now - start).seconds)
        return Self.floor(after: bytes, releasedAt: resident, over: floor)
    }

    /// The floor after a release of `released` bytes at `resident` bytes over `floor`, and
    /// whether it gave back little (under half of the growth): see ``releaseFreedMemory(ifGrownOver:by:)``.
    static func floor(after released: Int, releasedAt resident: Int, over floor: Int) -> (floor: Int, gaveBackLittle: Bool) {
        2 * released >= resident - floor ? (resident, false) : (floor, true)
    }

    /// Ends the writer after committing what is queued — returning once it has, so nothing is
    /// written after — and the fence decisions and live matching after what was offered; then the store
    /// stops writing (`PositionStore.stopWriting`: a restarted server may open its SQLite file).
    public func stop() {
        committer.stop()
        fenceMonitor?.stop()
        liveMatching?.stop()
        follower.cancel()
        store.stopWriting()
    }

    /// `stop()` for async code: the wait for the writer's last commit (an fsync) happens on a
    /// thread of its own, not on one of the cooperative pool's (two on a 2-core machine).
    public func stopped() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { self.stop(); done.resume() }.start()
        }
    }
}
