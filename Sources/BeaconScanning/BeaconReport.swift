import GeoBase
import GeoCore
public import Platform

/// `geo beacons`' ranging report: one JSON object per interval.
extension RangedBeacon {
    /// A ranging report as one JSON object, `{"time", "beacons": [...]}`: the time in ISO 8601
    /// (UTC); per beacon its identity (`uuid`, `major`, `minor`, or Eddystone `namespace` and
    /// `instance` in hexadecimal), `address`, `rssi` (dBm) and `distance` (m) to 0.01 or
    /// `null`, `proximity`, and the Eddystone `url` and `telemetry` (`batteryMillivolts`,
    /// `temperature` in °C to 0.01, `advertisementCount`, `uptime` in s to 0.1) when heard.
    public static func report(_ beacons: [RangedBeacon], at time: Date) -> String {
        var o = JSONObjectText()
        o.add("time", string: ISO8601Time.string(from: time))
        o.add("beacons", objects: beacons.map(\.json))
        return o.text
    }

    /// This beacon as ``report(_:at:)`` lists it.
    private var json: JSONObjectText {
        var o = JSONObjectText()
        switch identity {
        case .uuid(let uuid, let major, let minor):
            o.add("uuid", string: uuid.uuidString)
            o.add("major", integer: Int(major))
            o.add("minor", integer: Int(minor))
        case .eddystone(let namespace, let instance):
            o.add("namespace", string: hexadecimal(namespace))
            o.add("instance", string: hexadecimal(instance))
        }
        o.add("address", string: address)
        o.add("rssi", rssi, .dop)
        o.add("distance", distance?.meters, .dop)
        o.add("proximity", string: proximity.rawValue)
        if let url { o.add("url", string: url) }
        if let t = telemetry {
            var telemetry = JSONObjectText()
            telemetry.add("batteryMillivolts", integer: t.batteryMillivolts)
            telemetry.add("temperature", t.temperature, .dop)
            telemetry.add("advertisementCount", integer: Int(t.advertisementCount))
            telemetry.add("uptime", t.uptime.seconds, Self.tenths)
            o.add("telemetry", object: telemetry)
        }
        return o
    }

    private static let tenths = JSONNumber.Quantity(decimals: 1)
}
