public import GeoBase
import Platform
import GeoCore

/// The unit of an OsmAnd request's `speed`: the OsmAnd app's `{5}` is Android's
/// `Location.getSpeed()`, m/s; Traccar's OsmAnd decoder reads knots, which some clients built for
/// Traccar send. A per-device setting.
public enum OsmAndSpeedUnit: String, Sendable, Hashable {
    case metersPerSecond = "mps"
    case knots
}

/// The OsmAnd protocol (Traccar's "OsmAnd" port 5055; the OsmAnd app's online tracking): one fix
/// per request as URL query parameters, a form body, or a JSON body (Traccar Client ≥ 9, the
/// transistorsoft background-geolocation shape).
///
/// Query and form fields: `id` or `deviceid`; `lat` and `lon`, or `location=lat,lon`;
/// `timestamp` (Unix seconds or milliseconds, or ISO 8601; the request time when absent, as
/// Traccar does); `speed` (per `speedUnit`); `bearing` or `heading` (degrees); `altitude` (m);
/// `accuracy` (m), else `hdop` — the OsmAnd app's `{3}` is `Location.getAccuracy()` in metres
/// under that name. The OsmAnd app's placeholders: `lat={0}&lon={1}&timestamp={2}&hdop={3}&altitude={4}&speed={5}&bearing={6}`.
public enum OsmAnd {
    /// Decodes a request: a JSON body when `contentType` says JSON (or the body starts with `{`),
    /// otherwise the query's fields and a form body's, the query's first.
    /// - Parameter speedUnit: the unit of `speed` for a device (query and form only; JSON is m/s).
    public static func decode(query: Substring, body: [UInt8], contentType: String?, rules: DecodingRules,
                              speedUnit: (String) -> OsmAndSpeedUnit = { _ in .metersPerSecond }) throws(TrackingProtocolError) -> [TrackedFix] {
        try rules.checkSize(body)
        let isJSON = contentType?.lowercased().contains("json") ?? false
        if isJSON || body.first(where: { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 }) == UInt8(ascii: "{") {
            let fields = try FormFields(query)
            return try decodeJSON(body, deviceHint: fields.first("id", "deviceid")?.value, rules: rules)
        }
        // The usual request, a GET: its query read where it lies, not copied.
        if body.isEmpty { return [try decode(fields: try FormFields(query), rules: rules, speedUnit: speedUnit)] }
        guard let form = String(validating: body, as: UTF8.self) else {
            throw TrackingProtocolError(.malformed, "form body is not UTF-8", at: "body")
        }
        let text = query.isEmpty ? form.trimmedWhitespace : String(query) + "&" + form.trimmedWhitespace
        return [try decode(fields: try FormFields(Substring(text), kind: "parameter"), rules: rules, speedUnit: speedUnit)]
    }

    static func decode(fields: FormFields, rules: DecodingRules, speedUnit: (String) -> OsmAndSpeedUnit) throws(TrackingProtocolError) -> TrackedFix {
        guard let device = fields.first("id", "deviceid")?.value else {
            throw TrackingProtocolError(.missingDevice, "no 'id' or 'deviceid'", at: fields.kind)
        }
        let coordinate: Coordinate
        if let lat = try fields.number("lat", "latitude") {
            guard let lon = try fields.number("lon", "longitude") else {
                throw TrackingProtocolError(.missingField, "'lat' without 'lon'", at: fields.location("lon"))
            }
            coordinate = try rules.coordinate(latitude: lat, longitude: lon, at: fields.location("lat"))
        } else if let location = fields.first("location") {
            let parts = location.value.split(separator: ",")
            guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
                throw TrackingProtocolError(.invalidNumber, "'\(location.value)' is not 'latitude,longitude'", at: fields.location("location"))
            }
            coordinate = try rules.coordinate(latitude: lat, longitude: lon, at: fields.location("location"))
        } else {
            throw TrackingProtocolError(.missingField, "no 'lat' and 'lon' or 'location'", at: fields.kind)
        }
        var time = rules.now
        if let stamp = fields.first("timestamp") {
            if let value = Double(stamp.value) {
                guard value.isFinite else { throw TrackingProtocolError(.invalidNumber, "'\(stamp.value)' is not finite", at: fields.location("timestamp")) }
                time = TimeText.date(unix: value)
            } else if let date = TimeText.date(iso8601: stamp.value) {
                time = date
            } else {
                throw TrackingProtocolError(.malformed, "'\(stamp.value)' is neither a Unix time nor ISO 8601", at: fields.location("timestamp"))
            }
        }
        time = try rules.time(time, at: fields.location("timestamp"))
        let speed = try fields.number("speed").map { speedUnit(device) == .knots ? Speed.knots($0) : Speed.metersPerSecond($0) }
        let location = Location(coordinate: coordinate, timestamp: time,
                                altitude: try fields.number("altitude").map(Distance.meters),
                                horizontalAccuracy: try fields.number("accuracy", "hdop").map(Distance.meters),
                                speed: speed,
                                course: try fields.number("bearing", "heading").map(Bearing.degrees))
        return TrackedFix(device: device, location: location, source: .osmAnd)
    }

    /// `{"device_id": …, "location": {"timestamp": ISO, "coords": {latitude, longitude,
    /// accuracy, speed (m/s), heading, altitude}}}`; `location` may also be an array.
    static func decodeJSON(_ body: [UInt8], deviceHint: String?, rules: DecodingRules) throws(TrackingProtocolError) -> [TrackedFix] {
        let root = try JSONBody.parse(body, rules: rules)
        guard let device = root.string("device_id") ?? deviceHint, !device.isEmpty else {
            throw TrackingProtocolError(.missingDevice, "no 'device_id' member nor 'id' parameter", at: "$")
        }
        let items: [(JSONValue, String)]
        switch root["location"] {
        case .object?: items = [(root["location"]!, "$.location")]
        case .array(let array)?: items = array.enumerated().map { ($1, "$.location[\($0)]") }
        default: throw TrackingProtocolError(.missingField, "no 'location' object", at: "$")
        }
        var fixes: [TrackedFix] = []
        for (item, path) in items {
            guard let coords = item["coords"], case .object = coords else {
                throw TrackingProtocolError(.missingField, "no 'coords' object", at: path)
            }
            let cpath = path + ".coords"
            let coordinate = try rules.coordinate(latitude: try coords.requiredNumber("latitude", at: cpath),
                                                  longitude: try coords.requiredNumber("longitude", at: cpath), at: cpath)
            guard let stamp = item.string("timestamp"), let date = TimeText.date(iso8601: stamp) else {
                throw TrackingProtocolError(.missingField, "no ISO 8601 'timestamp'", at: path)
            }
            let speed = try coords.number("speed", at: cpath).flatMap { $0 < 0 ? nil : Speed.metersPerSecond($0) }
            let heading = try coords.number("heading", at: cpath).flatMap { $0 < 0 ? nil : Bearing.degrees($0) }
            let location = Location(coordinate: coordinate, timestamp: try rules.time(date, at: path + ".timestamp"),
                                    altitude: try coords.number("altitude", at: cpath).map(Distance.meters),
                                    horizontalAccuracy: try coords.number("accuracy", at: cpath).map(Distance.meters),
                                    speed: speed, course: heading)
            fixes.append(TrackedFix(device: device, location: location, source: .osmAnd))
        }
        return fixes
    }
}
