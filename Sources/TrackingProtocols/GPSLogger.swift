public import GeoBase
import Platform
import GeoCore

/// GPSLogger for Android's "Log to custom URL" with the body `%ALL`, a form:
/// `lat=…&lon=…&sat=…&desc=…&alt=…&acc=…&dir=…&prov=gps&spd_kph=…&spd=…&timestamp=…&time=…
/// &…&aid=…&ser=…`. `spd` is m/s (`spd_kph` km/h), `timestamp` Unix seconds, `time` ISO 8601 UTC,
/// `acc` and `alt` metres, `dir` degrees. The device is `ser` (the phone's serial), else `aid`
/// (Android ID), else a `device` or `id` parameter. Fields may also be in the query.
public enum GPSLogger {
    public static func decode(query: Substring, body: [UInt8], rules: DecodingRules) throws(TrackingProtocolError) -> TrackedFix {
        try rules.checkSize(body)
        guard let form = String(validating: body, as: UTF8.self) else {
            throw TrackingProtocolError(.malformed, "form body is not UTF-8", at: "body")
        }
        let text = [String(query), form.trimmedWhitespace].filter { !$0.isEmpty }.joined(separator: "&")
        let fields = try FormFields(Substring(text), kind: "parameter")
        guard let device = fields.first("device", "id", "ser", "aid")?.value else {
            throw TrackingProtocolError(.missingDevice, "no 'ser', 'aid', 'device' or 'id'", at: "parameters")
        }
        guard let lat = try fields.number("lat"), let lon = try fields.number("lon") else {
            throw TrackingProtocolError(.missingField, "no 'lat' and 'lon'", at: "parameters")
        }
        let coordinate = try rules.coordinate(latitude: lat, longitude: lon, at: fields.location("lat"))
        let time: Date
        if let stamp = try fields.number("timestamp") {
            time = try rules.time(TimeText.date(unix: stamp), at: fields.location("timestamp"))
        } else if let text = fields.first("time") {
            guard let date = TimeText.date(iso8601: text.value) else {
                throw TrackingProtocolError(.malformed, "'\(text.value)' is not ISO 8601", at: fields.location("time"))
            }
            time = try rules.time(date, at: fields.location("time"))
        } else {
            throw TrackingProtocolError(.missingField, "no 'timestamp' or 'time'", at: "parameters")
        }
        var speed = try fields.number("spd").map(Speed.metersPerSecond)
        if speed == nil { speed = try fields.number("spd_kph").map(Speed.kilometersPerHour) }
        let location = Location(coordinate: coordinate, timestamp: time,
                                altitude: try fields.number("alt").map(Distance.meters),
                                horizontalAccuracy: try fields.number("acc").map(Distance.meters),
                                speed: speed,
                                course: try fields.number("dir").map(Bearing.degrees),
                                satelliteCount: try fields.number("sat").map { Int($0) })
        return TrackedFix(device: device, location: location, source: .gpsLogger)
    }
}
