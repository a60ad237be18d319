public import Monitoring
import GeoBase
import GeoCore
import SystemIO
import Platform

/// A scanner that replays recorded advertisements from a file, for tests, demos and offline
/// analysis (``BlueZScanner`` scans live).
///
/// The file has one JSON object per line, blank lines and lines starting with `#` skipped:
///
///     {"time":"2026-07-14T06:00:00.250Z","address":"C4:7C:8D:6A:3E:01","rssi":-63,"data":"0201061aff4c0002…"}
///
/// `time` is ISO 8601 (UTC, fractional seconds optional, years 0001 to 9999), `rssi` in dBm, `data` the raw
/// advertising data in hexadecimal (the AD structures, as `btmon` or `hcidump` show them).
/// Advertisements without a beacon frame are ordinary Bluetooth traffic and yield nothing.
public struct BeaconReplayScanner: BeaconScanner {
    /// The sightings of the file, in its order.
    public let recorded: [BeaconSighting]
    /// The file's path.
    public let path: String

    public var name: String { "replay:\(path)" }

    /// The recorded sightings at once, in the file's order, keeping their recorded times.
    public func sightings() -> AsyncThrowingStream<BeaconSighting, any Error> {
        AsyncThrowingStream { output in
            for sighting in recorded { output.yield(sighting) }
            output.finish()
        }
    }

    /// Reads and parses a replay file.
    /// - Throws: `SystemIOError` when it cannot be read; ``MonitoringError`` naming the first bad
    ///   line.
    public init(path: String) throws {
        let bytes = try FileDescriptor.readContents(of: path)
        self.path = path
        recorded = try Self.sightings(parsing: String(decoding: bytes, as: UTF8.self))
    }

    /// The sightings in the text of a replay file.
    /// - Throws: ``MonitoringError`` `.malformedReplay` or `.malformedAdvertisement` naming the line.
    public static func sightings(parsing text: String) throws(MonitoringError) -> [BeaconSighting] {
        var out: [BeaconSighting] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let trimmed = String(line.drop(while: blank).reversed().drop(while: blank).reversed())
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let lineNumber = index + 1
            let record: Line
            do {
                record = try JSONDecoder().decode(Line.self, from: Data(trimmed.utf8))
            } catch {
                throw MonitoringError(.malformedReplay, "expected {\"time\",\"address\",\"rssi\",\"data\"}", at: "line \(lineNumber)")
            }
            guard let date = ISO8601Time.date(from: record.time) else {
                throw MonitoringError(.malformedReplay, "time '\(record.time)' is not ISO 8601", at: "line \(lineNumber)")
            }
            guard CivilCalendar.fourDigitYears.contains(date.timeIntervalSince1970) else {
                throw MonitoringError(.malformedReplay, "time '\(record.time)' is outside the years 0001 to 9999", at: "line \(lineNumber)")
            }
            guard let data = Self.bytes(hex: record.data) else {
                throw MonitoringError(.malformedReplay, "data is not an even number of hexadecimal digits", at: "line \(lineNumber)")
            }
            let frames: [BeaconAdvertisement]
            do {
                frames = try BeaconAdvertisement.frames(inAdvertisingData: data)
            } catch {
                throw MonitoringError(error.code, error.message, at: "line \(lineNumber)")
            }
            for frame in frames {
                out.append(BeaconSighting(timestamp: date, address: record.address, rssi: record.rssi, advertisement: frame))
            }
        }
        return out
    }

    private struct Line: Decodable {
        var time: String
        var address: String
        var rssi: Int
        var data: String
    }

    private static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for k in stride(from: 0, to: digits.count, by: 2) {
            guard let hi = value(digits[k]), let lo = value(digits[k + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
