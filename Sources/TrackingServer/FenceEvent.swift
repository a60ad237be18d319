import Foundation
import GeoCore

/// One geofence event of one device, as stored (the `events` table), read back
/// (`GET /api/events`), pushed on `/live` and POSTed to the webhook.
///
/// Unique by (device, fence, kind, time): a fix decided again after a restart, or a retried
/// request, makes the same event, which the store keeps once.
public struct FenceEvent: Sendable, Hashable, Codable {
    /// Declared in the order of kinds at one time (`rank`).
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// The device came inside the fence (Monitoring's decision: P ≥ 0.9, confirmed).
        case enter
        /// The device has been inside for the dwell time since its enter.
        case dwell
        /// The device left it (P ≤ 0.1, confirmed).
        case exit

        /// The order of kinds at one time: an enter before a dwell before an exit.
        var rank: Int { Self.allCases.firstIndex(of: self)! }

        /// `rank` in SQL, of the kind held in `column`: the stores read events back ordered by
        /// `time, rank`, and find a fence's latest event first by `time DESC, rank DESC`.
        static func rankSQL(_ column: String) -> String {
            "CASE \(column) " + allCases.map { "WHEN '\($0.rawValue)' THEN \($0.rank) " }.joined() + "END"
        }
    }

    public var device: String
    /// The fence's identifier from the fences file.
    public var fence: String
    public var kind: Kind
    /// The fix time that decided it (for a crossing inferred between two fixes, the time
    /// interpolated along the path), milliseconds since 1970, UTC.
    public var time: Int64
    /// The deciding fix's position, degrees.
    public var latitude: Double
    public var longitude: Double

    public init(device: String, fence: String, kind: Kind, time: Int64, latitude: Double, longitude: Double) {
        self.device = device
        self.fence = fence
        self.kind = kind
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Time, then kind (enter, dwell, exit), then fence: the order events are read back in.
    static func ordered(_ a: FenceEvent, _ b: FenceEvent) -> Bool {
        (a.time, a.kind.rank, a.fence, a.device) < (b.time, b.kind.rank, b.fence, b.device)
    }

    /// Whether this event may follow `previous`, the latest stored event of its device and fence
    /// (nil: none): an enter after none or an exit, an exit after an enter or a dwell, a dwell
    /// after an enter, and never before `previous`'s time. Each store takes only such events
    /// (`accepted(_:after:)`), so two server instances that decide one device's crossing each —
    /// the one that committed the fix and one that heard of it — store it once, and an instance
    /// whose state fell behind the other's cannot store a second enter or an exit never entered.
    func follows(_ previous: FenceEvent?) -> Bool {
        guard let previous else { return kind == .enter }
        guard time >= previous.time else { return false }
        switch (previous.kind, kind) {
        case (.exit, .enter), (.enter, .exit), (.dwell, .exit), (.enter, .dwell): return true
        default: return false
        }
    }

    /// Of `proposed`, those that follow (`follows(_:)`) the latest stored event of their device
    /// and fence (`latest`, keyed by `[device, fence]`) and the events accepted before them, in
    /// the order they are stored: each device and fence by time, then kind.
    static func accepted(_ proposed: [FenceEvent], after latest: [[String]: FenceEvent]) -> [FenceEvent] {
        var latest = latest
        return proposed.sorted { ($0.device, $0.fence, $0.time, $0.kind.rank) < ($1.device, $1.fence, $1.time, $1.kind.rank) }.filter { event in
            guard event.follows(latest[[event.device, event.fence]]) else { return false }
            latest[[event.device, event.fence]] = event
            return true
        }
    }

    /// As JSON: `{"device":…,"fence":…,"type":"enter|exit|dwell","time":"ISO 8601 UTC","latitude":…,"longitude":…}`.
    var json: JSONValue {
        .object(["device": .string(device), "fence": .string(fence), "type": .string(kind.rawValue),
                 "time": .string(TrackOutput.iso8601(time)), "latitude": .number(latitude), "longitude": .number(longitude)])
    }

    /// `{"type":"fence-events","events":[…]}`: the message of `/live`, the body of a webhook POST
    /// and of `/api/events`. Its `type` tells it from `/live`'s position messages (GeoJSON
    /// `FeatureCollection`s).
    static func message(_ events: [FenceEvent]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let value = JSONValue.object(["type": .string("fence-events"), "events": .array(events.map(\.json))])
        return Array((try? encoder.encode(value)) ?? Data())
    }
}
