import Foundation
public import Monitoring
import GeoCore

/// What the server monitors after the ack (`geo serve-tracking --fences`).
public struct FenceOptions: Sendable {
    /// The fences, as `RegionsFile.conditions(from:name:)` reads a GeoJSON or `.poly` file.
    public var fences: [(identifier: String, condition: MonitorCondition)]
    /// After how long inside a dwell event comes (nil: none). Default 300 s.
    public var dwell: Duration?
    /// The 68 % radius taken for a fix that reports no accuracy (OsmAnd without `accuracy`),
    /// metres; Monitoring's decision needs one. Default 20 m.
    public var assumedAccuracy: Double
    /// `http://HOST:PORT/PATH` to POST events to, or nil.
    public var webhook: String?
    /// Committed batches waiting for their decision: beyond this many a batch is not decided
    /// (`tracking_fence_batches_dropped_total`), so a slow store never grows memory without bound.
    public var queueBatches: Int

    public init(fences: [(identifier: String, condition: MonitorCondition)], dwell: Duration? = .seconds(300),
                assumedAccuracy: Double = 20, webhook: String? = nil, queueBatches: Int = 10_000) {
        self.fences = fences
        self.dwell = dwell
        self.assumedAccuracy = assumedAccuracy
        self.webhook = webhook
        self.queueBatches = queueBatches
    }
}

/// Geofences after the ack: the group committer offers each committed batch (`offer`, which
/// never waits); one thread of its own (the store's writes block) decides the batches in
/// commit order — one ordered lane for every
/// device — each device's fixes in fix-time order through its own copy of Monitoring's
/// `FenceEngine` (its accuracy-aware decision with hysteresis, its spatial index), then stores
/// the events (idempotent), pushes them to `/live` and hands them to the webhook.
///
/// Rules:
/// - A fix not after the device's latest decided fix (out of order, or replayed) is ignored by
///   the fence state (the engine's rule; after a restart, the time of the device's latest stored
///   event).
/// - `enter` when a fence becomes satisfied from not known inside, `exit` when it becomes
///   unsatisfied from inside (a first decision outside is no event), `dwell` after
///   `FenceOptions.dwell` inside; a crossing inferred between two fixes outside is an enter and
///   an exit at the interpolated times.
/// - A device first seen since the start takes its state from its latest stored event per fence
///   (inside after an enter or a dwell), so a restart sends no second enter.
/// - Every fence starts settled outside for a new device (assumed unsatisfied: a first decision
///   outside is no event anyway), so a fix only looks at the fences near it, never at all of them.
/// - Memory: each device's engine is a copy of the template sharing its fences, index and hot
///   arrays; it holds only the decisions that changed a record (`FenceEngine`'s overlay), so
///   100,000 fences cost their size once, not once per device.
final class FenceMonitor: AfterAck, @unchecked Sendable {
    struct Batch { var rows: [StoredFix]; var acknowledged: Date? }

    let options: FenceOptions
    let template: FenceEngine
    let store: any PositionStore
    let metrics: TrackingMetrics
    let live: LiveFanOut
    let webhook: FenceWebhook?
    /// Committed batches waiting for their decision.
    private let batches: WorkQueue<Batch>

    init(_ options: FenceOptions, store: any PositionStore, metrics: TrackingMetrics, live: LiveFanOut) throws {
        var engine = FenceEngine()
        for (identifier, condition) in options.fences {
            try engine.add(condition, identifier: identifier, assuming: .unsatisfied, dwell: options.dwell, at: Date(timeIntervalSince1970: 0))
        }
        self.options = options
        self.template = engine
        self.store = store
        self.metrics = metrics
        self.live = live
        self.webhook = try options.webhook.map { try FenceWebhook(url: $0, metrics: metrics) }
        batches = WorkQueue(capacity: options.queueBatches, stop: .afterQueued)
        // The thread keeps the monitor alive until `stop()` lets it end.
        let thread = Thread { self.run() }
        thread.name = "fence-decisions"
        thread.start()
    }

    /// Queues a committed batch for its decision; called after its requests were acknowledged.
    func offer(_ rows: [StoredFix], acknowledged: Date?) {
        if batches.put([Batch(rows: rows, acknowledged: acknowledged)]) > 0 { metrics.fenceBatchDropped() }
    }

    /// One device's fence state.
    struct DeviceFences {
        var engine: FenceEngine
        /// The fences the device is inside.
        var inside: Set<String> = []
        /// Fixes up to this fix time (ms) were decided before a restart.
        var decidedThrough = Int64.min

        /// The event a Monitoring event is for this device, or nil (a first decision outside).
        mutating func event(_ e: MonitorEvent, device: String, at fix: StoredFix) -> FenceEvent? {
            let kind: FenceEvent.Kind
            switch (e.state, e.refinement) {
            case (.satisfied, .dwell?): kind = .dwell
            case (.satisfied, .inferredCrossing?): kind = .enter
            case (.unsatisfied, .inferredCrossing?): kind = .exit
            case (.satisfied, _):
                guard inside.insert(e.identifier).inserted else { return nil }
                kind = .enter
            case (.unsatisfied, _):
                guard inside.remove(e.identifier) != nil else { return nil }
                kind = .exit
            default: return nil
            }
            return FenceEvent(device: device, fence: e.identifier, kind: kind, time: Int64((e.date.timeIntervalSince1970 * 1000).rounded()),
                              latitude: fix.latitude, longitude: fix.longitude)
        }
    }

    /// Decides the queued batches until `stop`.
    private func run() {
        nameKernelThread("fence-decisions")
        var devices: [String: DeviceFences] = [:]
        // The batches waiting, in commit order, each decided as before; their events are stored
        // in one write, so a thread that fell behind (a database busy with ingest: a write per
        // batch waited there) catches up with one round trip for up to 32 batches.
        while let taken = batches.take(upTo: 32) {
            var events: [FenceEvent] = []
            for batch in taken { decide(batch, devices: &devices, events: &events) }
            let added = stored(events)
            let now = Date()
            for batch in taken { if let acknowledged = batch.acknowledged { metrics.fenceBatchDecided(secondsAfterAck: now.timeIntervalSince(acknowledged)) } }
            guard !added.isEmpty else { continue }
            metrics.fenceEvents(added)
            live.publish(events: added)
            webhook?.enqueue(added)
        }
    }

    /// Decides one committed batch: each device's fixes in fix-time order through its state.
    private func decide(_ batch: Batch, devices: inout [String: DeviceFences], events: inout [FenceEvent]) {
        var byDevice: [String: [StoredFix]] = [:]
        for row in batch.rows { byDevice[row.device, default: []].append(row) }
        var new = restored(byDevice.keys.filter { devices[$0] == nil })
        for device in byDevice.keys.sorted() {
            // Taken out while decided, so that its engine's overlay is not copied on write.
            guard var state = devices.removeValue(forKey: device) ?? new.removeValue(forKey: device) else { continue }
            for fix in byDevice[device]!.sorted(by: { $0.fixTime < $1.fixTime }) where fix.fixTime > state.decidedThrough {
                let location = Location(coordinate: Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude),
                                        timestamp: Date(timeIntervalSince1970: Double(fix.fixTime) / 1000),
                                        horizontalAccuracy: .meters(fix.accuracy ?? options.assumedAccuracy))
                for e in state.engine.process(location) {
                    if let event = state.event(e, device: device, at: fix) { events.append(event) }
                }
            }
            devices[device] = state
        }
    }

    /// Stores `events`, trying 3 times 100 ms apart; the new ones (none when the store refused).
    private func stored(_ events: [FenceEvent]) -> [FenceEvent] {
        guard !events.isEmpty else { return [] }
        for attempt in 1...3 {
            do {
                let added = try store.add(events: events)
                metrics.storeSucceeded(.fenceEvents)
                return added
            } catch {
                guard attempt == 3 else {
                    Thread.sleep(forTimeInterval: 0.1)
                    continue
                }
                metrics.storeFailed(.fenceEvents, error)
            }
        }
        return []
    }

    /// The states of devices first seen since the start, from their latest stored event per
    /// fence (a store that does not answer: from nothing known): one query for all of them,
    /// so 10,000 devices arriving together cost a few queries, not 10,000 round trips on this
    /// thread (each held every later batch's decision: p99 over 1 s after the ack, PostgreSQL).
    private func restored(_ names: [String]) -> [String: DeviceFences] {
        var states = Dictionary(uniqueKeysWithValues: names.map { ($0, DeviceFences(engine: template)) })
        guard !names.isEmpty else { return states }
        let latest: [FenceEvent]
        do { latest = try store.latestEvents(devices: names) } catch {
            metrics.storeFailed(.fenceEvents, error)
            return states
        }
        for e in latest {
            if let through = states[e.device]?.decidedThrough, e.time > through { states[e.device]?.decidedThrough = e.time }
            guard e.kind != .exit, let record = template.record(for: e.fence) else { continue } // exited, or a fence no longer monitored
            let date = Date(timeIntervalSince1970: Double(e.time) / 1000)
            try? states[e.device]?.engine.restore(MonitorRecord(condition: record.condition, lastEvent: MonitorEvent(identifier: e.fence, date: date, state: .satisfied),
                                                                satisfiedSince: date, dwell: record.dwell, dwellReported: e.kind == .dwell))
            states[e.device]?.inside.insert(e.fence)
        }
        return states
    }

    /// Ends the decision thread after the queued batches, and the webhook's thread.
    func stop() {
        batches.stop()
        webhook?.stop()
    }
}
