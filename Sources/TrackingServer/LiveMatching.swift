import Foundation
import GeoCore
public import MapMatching
import TrackFiltering

/// A fix of a device that opted in to live matching, where the online matcher put it at once.
public struct LiveMatchedFix: Sendable, Hashable {
    public var device: String
    /// The fix's time, milliseconds since 1970, UTC.
    public var fixTime: Int64
    /// The matched position on the road, degrees; nil when the fix is off-road or no road is
    /// within reach (`LiveMatch.position`).
    public var latitude: Double?
    public var longitude: Double?
    /// The road's name (empty when unnamed) and OSM way id.
    public var road: String?
    public var way: Int64?
    /// The filter probability of the published state, in [0, 1] (`LiveMatch.confidence`).
    public var confidence: Double
    /// Whether the best path now disagrees with what was published for the fix before.
    public var revised: Bool

    /// `{"device":…,"time":"ISO 8601 UTC","latitude":…|null,"longitude":…|null,"road":…|null,"way":…|null,"confidence":…,"revised":…}`.
    var json: JSONValue {
        .object(["device": .string(device), "time": .string(TrackOutput.iso8601(fixTime)),
                 "latitude": latitude.map(JSONValue.number) ?? .null, "longitude": longitude.map(JSONValue.number) ?? .null,
                 "road": road.map(JSONValue.string) ?? .null, "way": way.map { .number(Double($0)) } ?? .null,
                 "confidence": .number(confidence), "revised": .bool(revised)])
    }

    /// `{"type":"matched","positions":[…]}`: the `/live` message of matched positions.
    static func message(_ fixes: [LiveMatchedFix]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let value = JSONValue.object(["type": .string("matched"), "positions": .array(fixes.map(\.json))])
        return Array((try? encoder.encode(value)) ?? Data())
    }
}

/// Which devices' fixes are matched live after the ack, over which roads (`LiveMatching`).
public struct LiveMatchingOptions: Sendable {
    /// The devices that opted in (`geo serve-tracking --live-match NAME`).
    public var devices: Set<String>
    /// The roads (`TrackRoads.matcher(osmFile:)`, as `track=matched` reads use).
    public var matcher: MapMatcher

    public init(devices: Set<String>, matcher: MapMatcher) {
        self.devices = devices
        self.matcher = matcher
    }
}

/// The clean-track rules and the online matcher after the ack, for the devices that opt in
/// (`geo serve-tracking --roads FILE --live-match NAME`): one thread of its own takes the
/// committed batches in commit order and runs each such device's fixes, in fix-time order,
/// through its own `TrackCleaner` (the read API's `track=cleaned` rules and Kalman gate,
/// `TrackViews.cleaningConfiguration`) and, when they pass, its own `OnlineMatcher` (as
/// `geo match --online`); each answer goes to the device's `/live` followers as a `matched`
/// message. A fix not after the device's latest one taken (out of order, or replayed) is
/// skipped, as the matcher's stream only goes forwards. Nothing here is stored: the read
/// API's `track=matched` matches the stored fixes whole, with the offline matcher, which sees
/// the fixes after each one too.
///
/// Memory: per device its cleaner and the matcher's live window (the session's committed
/// answers are taken and let go after each fix); the batches waiting are bounded by
/// `queueBatches`, past which a batch is not matched (`tracking_live_match_batches_dropped_total`).
final class LiveMatching: AfterAck, @unchecked Sendable {
    let devices: Set<String>
    let matcher: MapMatcher
    let metrics: TrackingMetrics
    let live: LiveFanOut
    /// Committed rows of the devices that opted in, a batch each, and when it was acknowledged.
    private let batches: WorkQueue<(rows: [StoredFix], acknowledged: Date?)>

    init(_ options: LiveMatchingOptions, metrics: TrackingMetrics, live: LiveFanOut, queueBatches: Int = 10_000) {
        devices = options.devices
        matcher = options.matcher
        self.metrics = metrics
        self.live = live
        batches = WorkQueue(capacity: queueBatches, stop: .afterQueued)
        // The thread keeps this alive until `stop()` lets it end.
        let thread = Thread { self.run() }
        thread.name = "live-matching"
        thread.start()
    }

    func offer(_ rows: [StoredFix], acknowledged: Date?) {
        let taken = rows.filter { devices.contains($0.device) }
        guard !taken.isEmpty else { return }
        if batches.put([(taken, acknowledged)]) > 0 { metrics.liveMatchBatchDropped() }
    }

    /// One device's cleaner and matcher, and the time of the latest fix it took (ms).
    struct DeviceState {
        var cleaner = TrackCleaner(configuration: TrackViews.cleaningConfiguration)
        var matcher: OnlineMatcher
        var through = Int64.min
    }

    private func run() {
        nameKernelThread("live-matching")
        var states: [String: DeviceState] = [:]
        while let taken = batches.take(upTo: 32) {
            var matched: [LiveMatchedFix] = []
            for (rows, _) in taken {
                for fix in rows.sorted(by: { ($0.device, $0.fixTime) < ($1.device, $1.fixTime) }) {
                    var state = states.removeValue(forKey: fix.device) ?? DeviceState(matcher: OnlineMatcher(matcher: matcher))
                    if fix.fixTime > state.through {
                        state.through = fix.fixTime
                        if let answer = Self.match(fix, cleaner: &state.cleaner, matcher: &state.matcher) { matched.append(answer) }
                    }
                    states[fix.device] = state
                }
            }
            live.publish(matched: matched)
            let now = Date()
            metrics.liveMatched(matched.count, batchesSecondsAfterAck: taken.compactMap { $0.acknowledged.map(now.timeIntervalSince) })
        }
    }

    /// A fix through the cleaner and, when it passes, the matcher; nil when a rule or the gate
    /// rejected it.
    static func match(_ fix: StoredFix, cleaner: inout TrackCleaner<StandardRules>, matcher: inout OnlineMatcher) -> LiveMatchedFix? {
        guard let cleaned = cleaner.process(TrackViews.location(fix)).location else { return nil }
        let answer = matcher.match(TracePoint(coordinate: cleaned.coordinate, time: cleaned.timestamp, horizontalAccuracy: cleaned.horizontalAccuracy))
        _ = matcher.takeCommitted() // the final answers are the offline matcher's, on read
        return LiveMatchedFix(device: fix.device, fixTime: fix.fixTime, latitude: answer.position?.coordinate.latitude,
                              longitude: answer.position?.coordinate.longitude, road: answer.position == nil ? nil : answer.roadName,
                              way: answer.position == nil ? nil : answer.wayID, confidence: answer.confidence, revised: answer.revised)
    }

    /// Ends the thread after matching what was offered.
    func stop() { batches.stop() }
}
