public import GeoBase
import Platform
import GeoCore

/// OwnTracks in HTTP mode (owntracks.org/booklet/tech/json, "HTTP"): a JSON message per POST
/// (or an array of them). `_type: location` is a fix: `lat`, `lon` (degrees), `tst` (Unix
/// seconds), `acc` and `vac` (m), `alt` (m), `vel` (km/h), `cog` (degrees). Every other `_type`
/// (`transition`, `waypoint`, `lwt`, `encrypted`, …) is accepted and yields no fix. The reply
/// the app expects is a JSON array (`[]`).
public enum OwnTracks {
    /// - Parameter deviceHint: `user/device` from the `X-Limit-U` and `X-Limit-D` headers the app
    ///   sends; a message's `topic` (`owntracks/user/device`) takes precedence.
    public static func decode(body: [UInt8], deviceHint: String?, rules: DecodingRules) throws(TrackingProtocolError) -> [TrackedFix] {
        let root = try JSONBody.parse(body, rules: rules)
        let messages: [(JSONValue, String)]
        if case .array(let array) = root { messages = array.enumerated().map { ($1, "$[\($0)]") } } else { messages = [(root, "$")] }
        var fixes: [TrackedFix] = []
        for (message, path) in messages {
            guard case .object = message, let type = message.string("_type") else {
                throw TrackingProtocolError(.missingField, "not a message with '_type'", at: path)
            }
            guard type == "location" else { continue }
            var device = deviceHint
            if let topic = message.string("topic") {
                let parts = topic.split(separator: "/")
                if parts.count >= 3, parts[0] == "owntracks" { device = "\(parts[1])/\(parts[2])" }
            }
            guard let device, !device.isEmpty else {
                throw TrackingProtocolError(.missingDevice, "no 'topic' member and no X-Limit-U / X-Limit-D headers", at: path)
            }
            let coordinate = try rules.coordinate(latitude: try message.requiredNumber("lat", at: path),
                                                  longitude: try message.requiredNumber("lon", at: path), at: path)
            let tst = try message.requiredNumber("tst", at: path)
            let time = try rules.time(Date(timeIntervalSince1970: tst), at: path + ".tst")
            let location = Location(coordinate: coordinate, timestamp: time,
                                    altitude: try message.number("alt", at: path).map(Distance.meters),
                                    horizontalAccuracy: try message.number("acc", at: path).map(Distance.meters),
                                    verticalAccuracy: try message.number("vac", at: path).map(Distance.meters),
                                    speed: try message.number("vel", at: path).flatMap { $0 < 0 ? nil : Speed.kilometersPerHour($0) },
                                    course: try message.number("cog", at: path).flatMap { $0 < 0 ? nil : Bearing.degrees($0) })
            fixes.append(TrackedFix(device: device, location: location, source: .ownTracks))
        }
        return fixes
    }
}
