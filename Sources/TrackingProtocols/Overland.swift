public import GeoBase
import Platform
import GeoCore

/// Overland (aaronpk/Overland-iOS, README "API"): a POST of `{"locations": [Feature, …]}`,
/// each a GeoJSON Point (`[longitude, latitude]`) with `properties.timestamp` (ISO 8601,
/// `2015-10-01T08:00:00-0700`), `altitude` (m), `speed` (m/s, negative when invalid),
/// `course` (degrees, negative when invalid), `horizontal_accuracy` and `vertical_accuracy`
/// (m, kept as sent: negative means invalid, Core Location's convention) and `device_id`.
/// `current` and `trip` are not stored (`current` is a copy of a queued point). The server must
/// reply exactly `{"result":"ok"}`, else the app keeps the batch and resends it.
public enum Overland {
    /// Decodes a batch. A location that is not a valid fix is refused alone (in `rejected`),
    /// so that one bad point does not make the app resend its queue for ever.
    /// - Parameter deviceHint: the device when a point's `device_id` is empty (a query parameter).
    public static func decode(body: [UInt8], deviceHint: String?, rules: DecodingRules) throws(TrackingProtocolError) -> DecodedFixes {
        let root = try JSONBody.parse(body, rules: rules)
        guard case .array(let locations)? = root["locations"] else {
            throw TrackingProtocolError(.missingField, "no 'locations' array", at: "$")
        }
        var result = DecodedFixes()
        for (index, feature) in locations.enumerated() {
            let path = "$.locations[\(index)]"
            do {
                result.fixes.append(try decode(feature: feature, path: path, deviceHint: deviceHint, rules: rules))
            } catch {
                result.rejected.append(error)
            }
        }
        return result
    }

    static func decode(feature: JSONValue, path: String, deviceHint: String?, rules: DecodingRules) throws(TrackingProtocolError) -> TrackedFix {
        guard let geometry = feature["geometry"], geometry.string("type") == "Point",
              case .array(let position)? = geometry["coordinates"], position.count >= 2,
              case .number(let lon) = position[0], case .number(let lat) = position[1] else {
            throw TrackingProtocolError(.missingField, "no Point geometry with [longitude, latitude]", at: path + ".geometry")
        }
        let coordinate = try rules.coordinate(latitude: lat, longitude: lon, at: path + ".geometry.coordinates")
        guard let properties = feature["properties"], case .object = properties else {
            throw TrackingProtocolError(.missingField, "no 'properties' object", at: path)
        }
        let ppath = path + ".properties"
        guard let stamp = properties.string("timestamp"), let date = TimeText.date(iso8601: stamp) else {
            throw TrackingProtocolError(.missingField, "no ISO 8601 'timestamp'", at: ppath)
        }
        let time = try rules.time(date, at: ppath + ".timestamp")
        let named = properties.string("device_id").flatMap { $0.isEmpty ? nil : $0 }
        guard let device = named ?? deviceHint, !device.isEmpty else {
            throw TrackingProtocolError(.missingDevice, "empty 'device_id' and no device parameter", at: ppath + ".device_id")
        }
        let location = Location(coordinate: coordinate, timestamp: time,
                                altitude: try properties.number("altitude", at: ppath).map(Distance.meters),
                                horizontalAccuracy: try properties.number("horizontal_accuracy", at: ppath).map(Distance.meters),
                                verticalAccuracy: try properties.number("vertical_accuracy", at: ppath).map(Distance.meters),
                                speed: try properties.number("speed", at: ppath).flatMap { $0 < 0 ? nil : Speed.metersPerSecond($0) },
                                course: try properties.number("course", at: ppath).flatMap { $0 < 0 ? nil : Bearing.degrees($0) })
        return TrackedFix(device: device, location: location, source: .overland)
    }
}
