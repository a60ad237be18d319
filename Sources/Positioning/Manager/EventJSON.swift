package import Foundation
package import GeoCore
import GeoBase
package import Monitoring

/// The JSON objects `geo track` and `geo visits` print (CONTRACT.md, `geo track` and
/// `geo visits`), one per line: numbers through `JSONNumber` (one precision per field, raw or
/// filtered), times as gpsd prints them (ISO 8601 UTC, milliseconds) or, for visits, the
/// fewest digits that read back.
package enum EventJSON {
    /// An update: `{"event":"update","time","lat","lon","accuracy","speed","course","stationary"}`;
    /// with `matched` (live matching on) a `"matched"` member follows: the match's
    /// `{"lat","lon","confidence","current"}`, or null when no road fits.
    package static func update(_ l: Location, stationary: Bool, matched: MapMatchedUpdate?? = nil) -> String {
        typealias N = JSONNumber
        var line = #"{"event":"update","time":\#(time(l.timestamp)),"#
            + #""lat":\#(N.string(l.coordinate.latitude, .coordinate)),"lon":\#(N.string(l.coordinate.longitude, .coordinate)),"#
            + #""accuracy":\#(N.string(l.horizontalAccuracy?.meters, .error)),"speed":\#(N.string(l.speed?.metersPerSecond, .speed)),"#
            + #""course":\#(N.string(l.course?.degrees, .course)),"stationary":\#(stationary)"#
        if let matched { line += #","matched":\#(matched.map(match) ?? "null")"# }
        return line + "}"
    }

    /// The `matched` object of an update, or null when no road fits.
    private static func match(_ m: MapMatchedUpdate) -> String {
        typealias N = JSONNumber
        guard let p = m.mapMatchedPosition else { return "null" }
        return #"{"lat":\#(N.string(p.coordinate.latitude, .coordinate)),"lon":\#(N.string(p.coordinate.longitude, .coordinate)),"#
            + #""confidence":\#(N.string(m.confidence, .probability)),"current":\#(m.isMatched)}"#
    }

    /// A lost position: `{"event":"lost","time"}`, the last fix's time (a lost position has no
    /// time of its own), null before the first fix.
    package static func lost(lastFix: Date?) -> String {
        #"{"event":"lost","time":\#(lastFix.map(time) ?? "null")}"#
    }

    /// A failure: `{"event":"error","code","message"}`.
    package static func error(_ error: PositioningError) -> String {
        #"{"event":"error","code":\#(JSONText.quoted("\(error.code)")),"message":\#(JSONText.quoted(error.message))}"#
    }

    /// A visit: `{"latitude","longitude","horizontalAccuracy","arrivalDate","departureDate"}`.
    /// - Parameters:
    ///   - event: whether it is `geo track`'s event (`"event":"visit"` first).
    ///   - lastFix: for a visit still going on, `geo visits` marks it `"inProgress":true` with
    ///     the last fix's date; `geo track` prints its departure as null.
    package static func visit(_ v: Visit, event: Bool, lastFix: Date? = nil) -> String {
        typealias N = JSONNumber
        let arrival = v.arrivalDate == .distantPast ? "null" : JSONText.quoted(ISO8601Time.string(from: v.arrivalDate))
        var line = (event ? #"{"event":"visit","# : "{")
            + #""latitude":\#(N.string(v.coordinate.latitude, .coordinate)),"longitude":\#(N.string(v.coordinate.longitude, .coordinate)),"#
            + #""horizontalAccuracy":\#(N.string(v.horizontalAccuracy.meters, .error)),"arrivalDate":\#(arrival),"#
        if let lastFix {
            line += #""departureDate":null,"inProgress":true,"lastFixDate":\#(JSONText.quoted(ISO8601Time.string(from: lastFix)))"#
        } else if event, v.isInProgress {
            line += #""departureDate":null"#
        } else {
            line += #""departureDate":\#(JSONText.quoted(ISO8601Time.string(from: v.departureDate)))"#
        }
        return line + "}"
    }

    /// A time as gpsd prints it, quoted.
    private static func time(_ date: Date) -> String { JSONText.quoted(ISO8601Time.string(from: date, fractionDigits: 3)) }
}
