public import Platform
import GeoCore
import GeoBase

/// The time formats tracking clients send.
public enum TimeText {
    /// An ISO 8601 / RFC 3339 date-time: `2015-10-01T08:00:00-0700` (Overland, without the
    /// colon), `2024-05-01T10:00:00.123Z`, `+02:00`; also `2024-05-01 10:00:00` (a space for
    /// the `T`, UTC when no offset, as Traccar's OsmAnd decoder reads it). Nil when it is not
    /// one. GeoBase's `ISO8601Time` reads all of these.
    public static func date(iso8601 text: String) -> Date? {
        ISO8601Time.date(from: text)
    }

    /// A Unix time as trackers send it: seconds, or milliseconds when above 10¹¹ (year 5138 in
    /// seconds; OsmAnd's `{2}` is milliseconds), as Traccar tells them apart.
    public static func date(unix value: Double) -> Date {
        Date(timeIntervalSince1970: value > 1e11 ? value / 1000 : value)
    }
}
