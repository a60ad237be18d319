public import GeoBase
public import Platform
public import GeoCore

/// The tracking protocols this module decodes.
public enum TrackingProtocol: String, Sendable, Hashable, CaseIterable {
    case osmAnd = "osmand"
    case ownTracks = "owntracks"
    case overland = "overland"
    case gpsLogger = "gpslogger"
    case teltonika = "teltonika"
}

/// One decoded fix of one device, units normalised: degrees WGS84, metres, m/s, degrees
/// clockwise from true north, UTC.
public struct TrackedFix: Sendable, Hashable {
    /// The device's identifier as the client sent it (OsmAnd `id`, an IMEI, `user/device`).
    public var device: String
    public var location: Location
    public var source: TrackingProtocol

    public init(device: String, location: Location, source: TrackingProtocol) {
        self.device = device
        self.location = location
        self.source = source
    }

    /// The fix time in whole milliseconds since 1970 (the store's key).
    public var fixTimeMilliseconds: Int64 { Int64((location.timestamp.timeIntervalSince1970 * 1000).rounded()) }

    /// A hash of the normalised payload (position, time, measurements), the same in every
    /// process (`FNV1a64` over the values' bit patterns): a retried fix hashes the same, a
    /// different fix at the same time does not. Stored keys depend on it: it must not change.
    public var payloadHash: Int64 {
        var hash = FNV1a64()
        let l = location
        hash.mix(littleEndianBytesOf: l.coordinate.latitude.bitPattern)
        hash.mix(littleEndianBytesOf: l.coordinate.longitude.bitPattern)
        hash.mix(littleEndianBytesOf: UInt64(bitPattern: fixTimeMilliseconds))
        for value in [l.altitude?.meters, l.horizontalAccuracy?.meters, l.verticalAccuracy?.meters, l.speed?.metersPerSecond, l.course?.degrees] {
            hash.mix(littleEndianBytesOf: value?.bitPattern ?? 0x7ff8_dead_beef_0000)
        }
        hash.mix(littleEndianBytesOf: UInt64(l.satelliteCount ?? 0xffff))
        return Int64(bitPattern: hash.value)
    }
}

/// Fixes decoded from a batch (Overland, Teltonika), with the records that were refused: a
/// batch is not refused whole for one bad record, or a client would resend it for ever.
public struct DecodedFixes: Sendable {
    public var fixes: [TrackedFix] = []
    /// One error per refused record, with its location.
    public var rejected: [TrackingProtocolError] = []
    public init(fixes: [TrackedFix] = [], rejected: [TrackingProtocolError] = []) {
        self.fixes = fixes
        self.rejected = rejected
    }
}

/// What every decoder checks besides syntax. `now` comes from the caller (STYLE.md §3.10).
public struct DecodingRules: Sendable {
    /// The time the request arrived, UTC: fixes more than `maximumLead` after it are refused.
    public var now: Date
    /// Bodies longer than this are refused: 5 MiB (an Overland batch of 1,000 points is ~600 KB,
    /// its README).
    public var maximumBodyBytes = 5 << 20
    /// Deeper JSON is refused before it is parsed: 32 levels (Overland's deepest is 5).
    public var maximumJSONDepth = 32
    /// Fixes before 2000-01-01T00:00:00Z are refused (a receiver without time says 1970 or 1980).
    public var earliestFixTime = Date(timeIntervalSince1970: 946_684_800)
    /// How far after `now` a fix may be: one day (86,400 s).
    public var maximumLead: Duration = .seconds(86_400)

    public init(now: Date) { self.now = now }

    /// A validated coordinate: both finite, latitude in [-90, 90], longitude in [-180, 180].
    func coordinate(latitude: Double, longitude: Double, at location: @autoclosure () -> String) throws(TrackingProtocolError) -> Coordinate {
        guard latitude.isFinite, longitude.isFinite else {
            throw TrackingProtocolError(.invalidNumber, "latitude \(latitude), longitude \(longitude) is not finite", at: location())
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw TrackingProtocolError(.invalidCoordinate, "latitude \(latitude), longitude \(longitude) is outside [-90, 90] × [-180, 180]", at: location())
        }
        return Coordinate(uncheckedLatitude: latitude, longitude: longitude == 180 ? -180 : longitude)
    }

    /// The time, checked against `earliestFixTime` and `now + maximumLead`.
    func time(_ date: Date, at location: @autoclosure () -> String) throws(TrackingProtocolError) -> Date {
        let lead = Double(maximumLead.components.seconds)
        guard date >= earliestFixTime, date.timeIntervalSince(now) <= lead else {
            throw TrackingProtocolError(.invalidTime, "fix time \(date.timeIntervalSince1970) s since 1970 is before 2000 or more than \(Int(lead)) s after the request", at: location())
        }
        return date
    }

    /// The body, refused when longer than `maximumBodyBytes`.
    func checkSize(_ body: [UInt8]) throws(TrackingProtocolError) {
        guard body.count <= maximumBodyBytes else {
            throw TrackingProtocolError(.bodyTooLarge, "\(body.count) bytes, more than \(maximumBodyBytes)", at: "body")
        }
    }
}
